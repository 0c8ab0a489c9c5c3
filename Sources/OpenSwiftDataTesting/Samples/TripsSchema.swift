import Foundation
import OpenSwiftData

/// A trip of the trips sample schema (the SwiftData tutorial's), root of a class hierarchy.
///
/// ```swift
/// let t = TravelTrip(name: "Lisbon", destination: "Lisbon", startDate: FixtureEpoch.reference, endDate: FixtureEpoch.date(offset: 86_400))
/// ```
@Model package class TravelTrip {
    /// The trip's name.
    package var name: String
    /// Where it goes.
    package var destination: String
    /// First day.
    package var startDate: Date
    /// Last day.
    package var endDate: Date
    /// Where the travellers stay; deleted with the trip.
    @Relationship(deleteRule: .cascade, inverse: \TravelAccommodation.trip) package var accommodations:
        [TravelAccommodation] = []
    /// A trip.
    package init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

/// A business trip: a per-diem allowance and meals.
///
/// ```swift
/// let b = TravelBusinessTrip(name: "Expo", destination: "Berlin", startDate: d0, endDate: d1, perdiem: 80)
/// ```
@Model package class TravelBusinessTrip: TravelTrip {
    /// The daily allowance.
    package var perdiem: Double
    /// Meals expensed on the trip; deleted with it.
    @Relationship(deleteRule: .cascade, inverse: \TravelMeal.trip) package var meals: [TravelMeal] = []
    /// A business trip.
    package init(name: String, destination: String, startDate: Date, endDate: Date, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination, startDate: startDate, endDate: endDate)
    }
}

/// Why a personal trip is taken.
///
/// ```swift
/// TravelReason.allCases.count   // 4
/// ```
package enum TravelReason: String, Codable, CaseIterable, Sendable {
    /// Visiting family.
    case family
    /// A reunion.
    case reunion
    /// Rest.
    case wellness
    /// Not given.
    case unknown
}

/// A personal trip, with a reason.
///
/// ```swift
/// let p = TravelPersonalTrip(name: "Home", destination: "Porto", startDate: d0, endDate: d1, reason: .family)
/// ```
@Model package class TravelPersonalTrip: TravelTrip {
    /// Why the trip is taken.
    package var reason: TravelReason
    /// A personal trip.
    package init(name: String, destination: String, startDate: Date, endDate: Date, reason: TravelReason) {
        self.reason = reason
        super.init(name: name, destination: destination, startDate: startDate, endDate: endDate)
    }
}

/// Where a trip's travellers stay.
///
/// ```swift
/// let hotel = TravelAccommodation(name: "Hotel Sol", address: "Rua 1", nights: 3)
/// ```
@Model package final class TravelAccommodation {
    /// The place's name.
    package var name: String
    /// Its address.
    package var address: String
    /// Nights booked.
    package var nights: Int
    /// The trip.
    package var trip: TravelTrip?
    /// An accommodation.
    package init(name: String, address: String, nights: Int) {
        self.name = name
        self.address = address
        self.nights = nights
    }
}

/// A meal on a business trip.
///
/// ```swift
/// let lunch = TravelMeal(venue: "Café", cost: 18.5, eatenAt: FixtureEpoch.reference, amount: 18.5)
/// ```
@Model package final class TravelMeal {
    /// Where it was eaten.
    package var venue: String
    /// What it cost.
    package var cost: Double
    /// When.
    package var eatenAt: Date
    /// What it cost, as a `Decimal` (any sign, scale and exponent, so the differential checks
    /// compare and sort Decimals).
    package var amount: Decimal
    /// The tip, if one was given.
    package var tip: Decimal?
    /// The business trip.
    package var trip: TravelBusinessTrip?
    /// A meal.
    package init(venue: String, cost: Double, eatenAt: Date, amount: Decimal, tip: Decimal? = nil) {
        self.venue = venue
        self.cost = cost
        self.eatenAt = eatenAt
        self.amount = amount
        self.tip = tip
    }
}

extension SampleSchema {
    /// Trips of three classes (plain, business, personal), accommodations on any trip, meals on
    /// business trips.
    ///
    /// Scale N: N trips (1 : 2 : 2 plain, business, personal), N accommodations, 2N meals
    /// (with `Decimal` amounts and optional tips).
    /// ```swift
    /// let fixture = SampleSchema.trips.fixture(seed: 1, scale: 200)
    /// ```
    package static var trips: SampleSchema {
        SampleSchema(
            name: "trips",
            summary: "Trip / BusinessTrip / PersonalTrip with accommodations and meals",
            modelTypes: [
                TravelTrip.self, TravelBusinessTrip.self, TravelPersonalTrip.self,
                TravelAccommodation.self, TravelMeal.self,
            ]
        ) { seed, scale, traits in
            Fixture(seed: seed, traits: traits) {
                Generate(TravelTrip.self, count: scale) { row in
                    let destination = row.word("destination")
                    let start = row.int("start", in: 0...730)
                    let days = row.int("days", .normal(mean: 7, standardDeviation: 4, in: 1...30))
                    let name = "\(destination.prefix(1).uppercased())\(destination.dropFirst()) \(row.index)"
                    let (d0, d1) = (
                        FixtureEpoch.date(offset: start * 86_400), FixtureEpoch.date(offset: (start + days) * 86_400)
                    )
                    switch row.weighted("kind", [1, 2, 2]) {
                    case 0: return TravelTrip(name: name, destination: destination, startDate: d0, endDate: d1)
                    case 1:
                        return TravelBusinessTrip(
                            name: name, destination: destination, startDate: d0, endDate: d1,
                            perdiem: row.price("perdiem", cents: 5_000...25_000))
                    default:
                        return TravelPersonalTrip(
                            name: name, destination: destination, startDate: d0, endDate: d1,
                            reason: row.enumCase("reason", TravelReason.self))
                    }
                }
                Generate(
                    TravelAccommodation.self, count: scale, parent: \.trip, children: \.accommodations, fanOut: .uniform
                ) { row in
                    TravelAccommodation(
                        name: row.words("name", count: .uniform(1...2)),
                        address: "\(row.int("number", in: 1...300)) \(row.word("street"))",
                        nights: row.int("nights", in: 1...14))
                }
                Generate(TravelMeal.self, count: 2 * scale, parent: \.trip, children: \.meals, fanOut: .zipf(0.5)) {
                    row in
                    TravelMeal(
                        venue: row.words("venue", count: .uniform(1...3)),
                        cost: row.price("cost", cents: 500...12_000),
                        eatenAt: row.date("eatenAt", seconds: 0...(730 * 86_400)),
                        amount: row.decimal("amount", significand: -2_000...2_000),
                        tip: row.nullable("tip", ratio: 0.3) { row.decimal("tip", significand: 0...500) })
                }
            }
        }
    }
}
