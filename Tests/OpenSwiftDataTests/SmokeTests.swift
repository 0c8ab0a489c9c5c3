import Foundation
import Testing

@testable import OpenSwiftData

@Suite("Smoke")
struct SmokeTests {
    @Test(arguments: StoreKind.allCases)
    func roundTrip(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let container = try kind.makeContainer(
            for: [
                Category.self, Trip.self, BusinessTrip.self, ExecutiveTrip.self, PersonalTrip.self, Everything.self,
                Measurement.self, Product.self, User.self,
            ], in: dir)
        let ctx = ModelContext(container)
        let c = Category(name: "animals")
        c.words = [Word(text: "cat"), Word(text: "horse")]
        ctx.insert(c)
        ctx.insert(ExecutiveTrip(name: "x", days: 2, perdiem: 3, lounge: "L"))
        ctx.insert(Everything())
        ctx.insert(Measurement(id: UUID(), takenAt: Date(), value: 3))
        try ctx.save()
        let ctx2 = ModelContext(container)
        let cats = try ctx2.fetch(FetchDescriptor<Category>())
        #expect(cats.count == 1)
        #expect(cats.first?.words.count == 2)
        let trips = try ctx2.fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        #expect(trips.first is ExecutiveTrip)
        #expect((trips.first as? ExecutiveTrip)?.lounge == "L")
        #expect(try ctx2.fetch(FetchDescriptor<Measurement>()).first?.value == 3)
    }
}
