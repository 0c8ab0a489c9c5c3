import Foundation
import OpenSwiftData

// The models the conformance suites use. They are public so a team can open a store the
// suites wrote, and so their schema shows what each suite exercises.

/// An account with a unique handle (UNQ- cases): `@Attribute(.unique)` upserts at save.
@Model public final class ConformanceAccount {
    /// The unique key.
    @Attribute(.unique) public var handle: String
    /// A value an upsert overwrites.
    public var balance: Int
    /// An optional value (nil never collides).
    public var email: String?
    /// An account with a handle and a balance.
    public init(handle: String, balance: Int, email: String? = nil) {
        self.handle = handle
        self.balance = balance
        self.email = email
    }
}

/// A row unique on the pair (`first`, `second`) through `#Unique` (compound uniqueness).
@Model public final class ConformancePair {
    #Unique<ConformancePair>([\.first, \.second])
    /// The first half of the key.
    public var first: String
    /// The second half of the key.
    public var second: Int
    /// A value an upsert overwrites.
    public var value: Double
    /// A pair row.
    public init(first: String, second: Int, value: Double) {
        self.first = first
        self.second = second
        self.value = value
    }
}

/// An owner with one to-many relationship per delete rule (DEL- and REL- cases).
@Model public final class ConformanceOwner {
    /// The owner's name.
    public var name: String
    /// Children deleted with the owner.
    @Relationship(deleteRule: .cascade, inverse: \ConformanceCascaded.owner) public var cascaded: [ConformanceCascaded] = []
    /// Children whose `owner` becomes nil (the default rule, stated explicitly).
    @Relationship(deleteRule: .nullify, inverse: \ConformanceNullified.owner) public var nullified: [ConformanceNullified] = []
    /// Children that forbid deleting a non-empty owner.
    @Relationship(deleteRule: .deny, inverse: \ConformanceDenied.owner) public var denied: [ConformanceDenied] = []
    /// An owner with a name.
    public init(name: String) { self.name = name }
}

/// A child deleted with its owner (`.cascade`).
@Model public final class ConformanceCascaded {
    /// The child's label.
    public var label: String
    /// The owning side.
    public var owner: ConformanceOwner?
    /// A child with a label.
    public init(label: String) { self.label = label }
}

/// A child left behind with a nil owner (`.nullify`).
@Model public final class ConformanceNullified {
    /// The child's label.
    public var label: String
    /// The owning side.
    public var owner: ConformanceOwner?
    /// A child with a label.
    public init(label: String) { self.label = label }
}

/// A child whose presence forbids deleting its owner (`.deny`).
@Model public final class ConformanceDenied {
    /// The child's label.
    public var label: String
    /// The owning side.
    public var owner: ConformanceOwner?
    /// A child with a label.
    public init(label: String) { self.label = label }
}

/// The base of a three-level hierarchy (INH- cases).
@Model public class ConformanceVehicle {
    /// The vehicle's name.
    public var name: String
    /// Wheels, for predicates on an inherited attribute.
    public var wheels: Int
    /// A vehicle.
    public init(name: String, wheels: Int) {
        self.name = name
        self.wheels = wheels
    }
}

/// A subclass with its own attribute.
@Model public class ConformanceCar: ConformanceVehicle {
    /// Seats, stored only for cars.
    public var seats: Int
    /// A car.
    public init(name: String, seats: Int) {
        self.seats = seats
        super.init(name: name, wheels: 4)
    }
}

/// A subclass of a subclass.
@Model public final class ConformanceElectricCar: ConformanceCar {
    /// Battery capacity in kWh.
    public var batteryKWh: Double
    /// An electric car.
    public init(name: String, seats: Int, batteryKWh: Double) {
        self.batteryKWh = batteryKWh
        super.init(name: name, seats: seats)
    }
}

/// A second subclass of the base.
@Model public final class ConformanceTruck: ConformanceVehicle {
    /// Payload in tonnes.
    public var payload: Double
    /// A truck.
    public init(name: String, wheels: Int, payload: Double) {
        self.payload = payload
        super.init(name: name, wheels: wheels)
    }
}

/// A row with one attribute of each common type (PRD- and FET- cases).
@Model public final class ConformanceRecord {
    /// A string compared case-sensitively.
    public var name: String
    /// An integer.
    public var number: Int
    /// A floating-point amount.
    public var amount: Double
    /// An optional string (nil handling).
    public var note: String?
    /// An optional integer.
    public var rank: Int?
    /// A boolean flag.
    public var flag: Bool
    /// A date.
    public var date: Date
    /// A record.
    public init(name: String, number: Int, amount: Double = 0, note: String? = nil, rank: Int? = nil,
                flag: Bool = false, date: Date = Date(timeIntervalSince1970: 0)) {
        self.name = name
        self.number = number
        self.amount = amount
        self.note = note
        self.rank = rank
        self.flag = flag
        self.date = date
    }
}
