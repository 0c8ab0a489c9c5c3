import Foundation
import Testing

@testable import OpenSwiftData

@Model final class RcTeam {
    var name: String
    @Relationship(minimumModelCount: 1, maximumModelCount: 2) var players: [RcPlayer] = []
    init(name: String) { self.name = name }
}

@Model final class RcPlayer {
    var name: String
    @Relationship(inverse: \RcTeam.players) var teams: [RcTeam] = []
    init(name: String) { self.name = name }
}

@Model final class RcLeague {
    var name: String
    @Relationship(minimumModelCount: 1, inverse: \RcSide.league) var sides: [RcSide] = []
    init(name: String) { self.name = name }
}

@Model final class RcSide {
    var name: String
    var league: RcLeague?
    init(name: String) { self.name = name }
}

/// REL-04: `minimumModelCount` and `maximumModelCount` at save, also for a list changed from its
/// other side while it was not loaded.
@Suite("RelationshipCounts")
struct RelationshipCountTests {
    private static let models: [any PersistentModel.Type] = [RcTeam.self, RcPlayer.self, RcLeague.self, RcSide.self]

    /// A store holding team "t" with the given players, and league "l" with side "s".
    private static func setUp(_ kind: StoreKind, _ dir: ScratchDirectory, players: [String]) throws -> ModelContainer {
        let container = try kind.makeContainer(for: models, in: dir, name: "store")
        let seed = ModelContext(container)
        let team = RcTeam(name: "t")
        seed.insert(team)
        for name in players {
            let p = RcPlayer(name: name)
            seed.insert(p)
            team.players.append(p)
        }
        let league = RcLeague(name: "l")
        seed.insert(league)
        let side = RcSide(name: "s")
        seed.insert(side)
        side.league = league
        try seed.save()
        return container
    }

    /// The stored team's players, sorted, as a fresh context reads them.
    private static func storedPlayers(_ container: ModelContainer) throws -> [String] {
        let team = try #require(try ModelContext(container).fetch(FetchDescriptor<RcTeam>()).first)
        return team.players.map(\.name).sorted()
    }

    /// Whether `body` throws a `modelValidationFailure` naming `property`.
    private static func refuses(_ property: String, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let e as SwiftDataError {
            return e.code == SwiftDataError.modelValidationFailure.code && e.propertyName == property
        } catch {
            return false
        }
    }

    @Test(
        "REL-04: a new model below its minimum or above its maximum is refused; nothing is written",
        arguments: StoreKind.allCases)
    func newModelBounds(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "counts")
        let container = try Self.setUp(kind, dir, players: ["a"])
        let context = ModelContext(container)
        let empty = RcTeam(name: "empty")
        context.insert(empty)
        #expect(Self.refuses("players") { try context.save() })
        #expect(context.insertedModelsArray.count == 1)
        for name in ["x", "y", "z"] {
            let p = RcPlayer(name: name)
            context.insert(p)
            empty.players.append(p)
        }
        #expect(Self.refuses("players") { try context.save() })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<RcTeam>()) == 1)
        empty.players.removeLast()
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<RcTeam>()) == 2)
    }

    @Test(
        "REL-04: leaving a team from the player's side is checked against the team's minimum, its list loaded or not",
        arguments: StoreKind.allCases, [false, true])
    func minimumFromOtherSide(_ kind: StoreKind, _ teamListLoaded: Bool) throws {
        let dir = try ScratchDirectory(prefix: "counts")
        let container = try Self.setUp(kind, dir, players: ["a"])
        let context = ModelContext(container)
        let team = try #require(try context.fetch(FetchDescriptor<RcTeam>()).first)
        if teamListLoaded { #expect(team.players.count == 1) }
        let player = try #require(try context.fetch(FetchDescriptor<RcPlayer>()).first)
        player.teams = []
        #expect(Self.refuses("players") { try context.save() }, "teamListLoaded \(teamListLoaded)")
        #expect(try Self.storedPlayers(container) == ["a"])
        #expect(context.hasChanges)
    }

    @Test(
        "REL-04: joining a full team from the player's side is checked against the team's maximum, its list loaded or not",
        arguments: StoreKind.allCases, [false, true])
    func maximumFromOtherSide(_ kind: StoreKind, _ teamListLoaded: Bool) throws {
        let dir = try ScratchDirectory(prefix: "counts")
        let container = try Self.setUp(kind, dir, players: ["a", "b"])
        let context = ModelContext(container)
        let team = try #require(try context.fetch(FetchDescriptor<RcTeam>()).first)
        if teamListLoaded { #expect(team.players.count == 2) }
        let newcomer = RcPlayer(name: "c")
        context.insert(newcomer)
        newcomer.teams = [team]
        #expect(Self.refuses("players") { try context.save() }, "teamListLoaded \(teamListLoaded)")
        #expect(try Self.storedPlayers(container) == ["a", "b"])
    }

    @Test(
        "REL-04: clearing a to-one whose inverse list has a minimum is checked against that list",
        arguments: StoreKind.allCases)
    func minimumThroughToOne(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "counts")
        let container = try Self.setUp(kind, dir, players: ["a"])
        let context = ModelContext(container)
        let side = try #require(try context.fetch(FetchDescriptor<RcSide>()).first)
        side.league = nil
        #expect(Self.refuses("sides") { try context.save() })
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<RcSide>()).first)
        #expect(stored.league?.name == "l")
        // A second side joins first: the league keeps one, and the save goes through.
        let other = RcSide(name: "o")
        context.insert(other)
        other.league = try #require(try context.fetch(FetchDescriptor<RcLeague>()).first)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<RcLeague>()).first?.sides.map(\.name) == ["o"])
    }
}
