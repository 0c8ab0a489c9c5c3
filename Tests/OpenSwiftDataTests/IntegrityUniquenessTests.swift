import Foundation
import Testing
@testable import OpenSwiftData

/// Uniqueness with the tutorial models and on a to-one relationship (behaviour reference §2).
@Suite("Uniqueness (tutorial models)")
struct IntegrityUniquenessTests {
    @Test("UNQ-10 the tutorial User: re-inserting a user with the same id updates it", arguments: StoreKind.allCases)
    func userReinsert(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unqi")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let id = UUID()
        ctx.insert(User(id: id, name: "Ada", joined: day(1)))
        try ctx.save()
        ctx.insert(User(id: id, name: "Ada Lovelace", joined: day(2)))
        try ctx.save()
        let users = try ModelContext(container).fetch(FetchDescriptor<User>())
        #expect(users.count == 1 && users[0].name == "Ada Lovelace" && users[0].joined == day(2))
    }

    @Test("UNQ-16 the tutorial compound-unique Review: same author and title upserts", arguments: StoreKind.allCases)
    func compoundReview(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unqi")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        ctx.insert(IgReview(author: "ann", title: "Dune", stars: 3))
        ctx.insert(IgReview(author: "ann", title: "Emma", stars: 4))
        try ctx.save()
        ctx.insert(IgReview(author: "ann", title: "Dune", stars: 5))
        ctx.insert(IgReview(author: "bob", title: "Dune", stars: 1))
        try ctx.save()
        let reviews = try ModelContext(container).fetch(FetchDescriptor<IgReview>(sortBy: [SortDescriptor(\.author), SortDescriptor(\.title)]))
        #expect(reviews.map { "\($0.author)/\($0.title)/\($0.stars)" } == ["ann/Dune/5", "ann/Emma/4", "bob/Dune/1"])
    }

    @Test("UNQ-21 a unique to-one relationship: a second passport for the same holder upserts", arguments: StoreKind.allCases)
    func uniqueToOne(_ kind: StoreKind) throws {
        let dir = TemporaryDirectory("unqi")
        let container = try makeContainer(kind, integrityModels, in: dir)
        let ctx = ModelContext(container)
        let ada = IgCitizen(name: "ada"), bob = IgCitizen(name: "bob")
        ctx.insert(IgPassport(number: "A1", holder: ada))
        ctx.insert(IgPassport(number: "B1", holder: bob))
        ctx.insert(IgPassport(number: "N1", holder: nil))
        ctx.insert(IgPassport(number: "N2", holder: nil))
        try ctx.save()
        ctx.insert(IgPassport(number: "A2", holder: ada))
        try ctx.save()
        let passports = try ModelContext(container).fetch(FetchDescriptor<IgPassport>(sortBy: [SortDescriptor(\.number)]))
        #expect(passports.map(\.number) == ["A2", "B1", "N1", "N2"])
        #expect(passports[0].holder?.name == "ada")
    }
}
