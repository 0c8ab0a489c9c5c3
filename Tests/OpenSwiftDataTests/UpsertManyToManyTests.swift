import Foundation
import Testing

@testable import OpenSwiftData

@Model final class UmOwner {
    @Attribute(.unique) var number: Int
    var name: String
    @Relationship(inverse: \UmClub.members) var clubs: [UmClub] = []
    init(number: Int, name: String) {
        self.number = number
        self.name = name
    }
}

@Model final class UmClub {
    var title: String
    var members: [UmOwner] = []
    init(title: String) { self.title = title }
}

/// UNQ-14 for many-to-many lists: the row an upsert takes over is linked to exactly the new
/// model's list, also when another model linked the stored row's object in the same save.
@Suite("UpsertManyToMany")
struct UpsertManyToManyTests {
    /// A store with owners 1 and 2 and a club whose only member is owner 2; a context that has
    /// the club (its members loaded) and owner 1.
    private static func setUp(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> (
        container: ModelContainer, context: ModelContext, club: UmClub, owner: UmOwner
    ) {
        let container = try kind.makeContainer(for: [UmOwner.self, UmClub.self], in: dir, name: "store")
        let seed = ModelContext(container)
        let club = UmClub(title: "c")
        seed.insert(club)
        seed.insert(UmOwner(number: 1, name: "stored"))
        let two = UmOwner(number: 2, name: "two")
        seed.insert(two)
        club.members = [two]
        try seed.save()
        let context = ModelContext(container)
        let clubHere = try #require(try context.fetch(FetchDescriptor<UmClub>()).first)
        _ = clubHere.members.count
        let owner = try #require(
            try context.fetch(FetchDescriptor<UmOwner>(predicate: #Predicate { $0.number == 1 })).first)
        return (container, context, clubHere, owner)
    }

    /// The club's members and owner 1's clubs as a fresh context reads them from the store.
    private static func stored(_ container: ModelContainer) throws -> (
        members: [Int], clubsOfOne: [String], name: String
    ) {
        let check = ModelContext(container)
        let club = try #require(try check.fetch(FetchDescriptor<UmClub>()).first)
        let one = try #require(
            try check.fetch(FetchDescriptor<UmOwner>(predicate: #Predicate { $0.number == 1 })).first)
        return (club.members.map(\.number).sorted(), one.clubs.map(\.title), one.name)
    }

    @Test(
        "UNQ-14: a link a changed model made this save to a row an upsert takes over is not kept when the new model's list leaves it out",
        arguments: StoreKind.allCases, [false, true])
    func linkFromChangedModelDropped(_ kind: StoreKind, _ fromOwnerSide: Bool) throws {
        let dir = try ScratchDirectory(prefix: "upsert-m2m")
        let (container, context, club, owner) = try Self.setUp(kind, dir)
        if fromOwnerSide {
            owner.clubs.append(club)
        } else {
            club.members.append(owner)
        }
        #expect(club.members.map(\.number).sorted() == [1, 2])
        context.insert(UmOwner(number: 1, name: "new"))
        try context.save()

        let after = try Self.stored(container)
        #expect(after.members == [2], "fromOwnerSide \(fromOwnerSide)")
        #expect(after.clubsOfOne == [])
        #expect(after.name == "new")
        // The context shows what the store holds.
        #expect(club.members.map(\.number) == [2], "fromOwnerSide \(fromOwnerSide)")
        #expect(owner.clubs.isEmpty && owner.name == "new")
    }

    @Test(
        "UNQ-14: the link is kept when the new model's list names the model that made it",
        arguments: StoreKind.allCases)
    func linkNamedByNewModelKept(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-m2m")
        let (container, context, club, owner) = try Self.setUp(kind, dir)
        club.members.append(owner)
        let new = UmOwner(number: 1, name: "new")
        context.insert(new)
        new.clubs = [club]
        try context.save()

        let after = try Self.stored(container)
        #expect(after.members == [1, 2])
        #expect(after.clubsOfOne == ["c"])
        #expect(club.members.contains { $0 === owner })
    }

    @Test(
        "UNQ-14: a stored link of the taken-over row goes when the new model's list leaves it out",
        arguments: StoreKind.allCases)
    func storedLinkDropped(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "upsert-m2m")
        let (container, context, club, owner) = try Self.setUp(kind, dir)
        club.members.append(owner)
        try context.save()
        #expect(try Self.stored(container).members == [1, 2])

        let later = ModelContext(container)
        later.insert(UmOwner(number: 1, name: "new"))
        try later.save()
        #expect(try Self.stored(container).members == [2])
        #expect(try Self.stored(container).clubsOfOne == [])
    }

    @Test(
        "UNQ-14: a stored link the upsert drops leaves the loaded lists of this context too",
        arguments: StoreKind.allCases, [false, true])
    func storedLinkDroppedInMemory(_ kind: StoreKind, _ ownerListLoaded: Bool) throws {
        let dir = try ScratchDirectory(prefix: "upsert-m2m")
        let (container, context, club, owner) = try Self.setUp(kind, dir)
        club.members.append(owner)
        try context.save()

        let later = ModelContext(container)
        let clubHere = try #require(try later.fetch(FetchDescriptor<UmClub>()).first)
        #expect(clubHere.members.map(\.number).sorted() == [1, 2])
        let ownerHere = try #require(
            try later.fetch(FetchDescriptor<UmOwner>(predicate: #Predicate { $0.number == 1 })).first)
        if ownerListLoaded { #expect(ownerHere.clubs.map(\.title) == ["c"]) }
        later.insert(UmOwner(number: 1, name: "new"))
        try later.save()
        #expect(try Self.stored(container).members == [2])
        #expect(clubHere.members.map(\.number) == [2], "ownerListLoaded \(ownerListLoaded)")
        #expect(ownerHere.clubs.isEmpty)
    }

    @Test(
        "UNQ-30, UNQ-14: a club linked to a new owner that collapses into a later one stays paired with the row the later one upserts",
        arguments: StoreKind.allCases, [false, true])
    func collapsedOwnersClubKept(_ kind: StoreKind, _ clubListLoaded: Bool) throws {
        let dir = try ScratchDirectory(prefix: "upsert-m2m")
        let (container, _, _, _) = try Self.setUp(kind, dir)
        let context = ModelContext(container)
        let club = try #require(try context.fetch(FetchDescriptor<UmClub>()).first)
        if clubListLoaded { #expect(club.members.map(\.number) == [2]) }
        let first = UmOwner(number: 1, name: "first")
        context.insert(first)
        first.clubs = [club]
        let second = UmOwner(number: 1, name: "second")
        context.insert(second)
        try context.save()

        let after = try Self.stored(container)
        #expect(after.members == [1, 2], "clubListLoaded \(clubListLoaded)")
        #expect(after.clubsOfOne == ["c"] && after.name == "second")
        #expect(first.clubs.map(\.title) == ["c"] && second.clubs.map(\.title) == ["c"])
        #expect(club.members.map(\.number).sorted() == [1, 2])
    }
}
