import Foundation
import Testing

@testable import OpenSwiftData

@Model final class NsUser {
    var name: String
    var nickname: String?
    var seq: Int
    var team: NsTeam?
    init(name: String, nickname: String? = nil, seq: Int) {
        self.name = name
        self.nickname = nickname
        self.seq = seq
    }
}

@Model final class NsTeam {
    var name: String
    init(name: String) { self.name = name }
}

/// Names whose natural order differs from `<`: numbers of several lengths, leading zeros,
/// case, Latin diacritics, a prefix, and a non-Latin script.
private let nsNames = [
    "User 10", "user 2", "User 1", "User 02", "Émile", "emile", "Zoë", "zoe",
    "file", "file1", "a07", "a7", "Ωmega", "Straße", "strasse", "User 100", "1 apple", " space",
]

/// The order ``NaturalStringComparator`` documents for `nsNames`.
private let nsNatural = [
    " space", "1 apple", "a07", "a7", "emile", "Émile", "file", "file1", "strasse", "Straße",
    "User 1", "User 02", "user 2", "User 10", "User 100", "Zoë", "zoe", "Ωmega",
]

private func nsContainer(_ kind: StoreKind, _ dir: ScratchDirectory, style: StringSortStyle? = nil) throws
    -> ModelContainer
{
    let schema = Schema([NsUser.self, NsTeam.self])
    var config =
        kind == .memory
        ? ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)
        : ModelConfiguration(schema: schema, url: dir.file("natural.store"))
    if let style { config.stringSortStyle = style }
    return try ModelContainer(for: schema, configurations: [config])
}

private func nsSeed(_ context: ModelContext) throws {
    let teams = ["Team 10", "team 9", "Équipe"].map(NsTeam.init)
    teams.forEach(context.insert)
    for (i, n) in nsNames.enumerated() {
        let u = NsUser(name: n, nickname: i % 3 == 0 ? nil : nsNames[(i * 5) % nsNames.count], seq: i)
        context.insert(u)
        u.team = i % 4 == 3 ? nil : teams[i % 3]
    }
    try context.save()
}

@Suite("Natural string sort")
struct NaturalSortTests {
    @Test("NaturalStringComparator: numbers by value, case and Latin diacritics folded, ties by <")
    func comparator() {
        #expect(nsNames.sorted(using: NaturalStringComparator()) == nsNatural)
        #expect(nsNames.sorted(using: NaturalStringComparator(order: .reverse)) == nsNatural.reversed())
        let c = NaturalStringComparator()
        #expect(c.compare("User 2", "User 10") == .orderedAscending)
        #expect(c.compare("x", "x") == .orderedSame)
        #expect(c.compare("a", "A") != .orderedSame, "a total order: only equal strings tie")
        // Swift's own sort (and Foundation's on Linux) is by <.
        #expect(["User 2", "User 10"].sorted() == ["User 10", "User 2"])
    }

    @Test(
        "FET-06 SortDescriptor(\\.name) orders naturally by default, as Apple's localizedStandard; .lexical asks for <",
        arguments: StoreKind.allCases)
    func perFetch(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "natural-fetch")
        let container = try nsContainer(kind, dir)
        #expect(container.configurations.first?.stringSortStyle == .natural, "the default")
        try nsSeed(ModelContext(container))
        let context = ModelContext(container)
        let byDefault = FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(byDefault).map(\.name) == nsNatural)
        #expect(try container.sql(for: byDefault).contains("COLLATE osd_natural"))
        // The descriptor's own comparator, then the fetch's style, ask for Swift's <.
        let lexicalKey = FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])
        #expect(try context.fetch(lexicalKey).map(\.name) == nsNames.sorted())
        #expect(try !container.sql(for: lexicalKey).contains("COLLATE"), "a lexical sort can walk an index")
        var lexicalKeyNaturalFetch = lexicalKey
        lexicalKeyNaturalFetch.stringSortStyle = .natural
        #expect(
            try context.fetch(lexicalKeyNaturalFetch).map(\.name) == nsNames.sorted(),
            "the descriptor's comparator wins")
        let lexicalReverse = FetchDescriptor<NsUser>(
            sortBy: [SortDescriptor(\.name, comparator: .lexical, order: .reverse)])
        #expect(try context.fetch(lexicalReverse).map(\.name) == nsNames.sorted().reversed())
        var lexicalFetch = FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name)])
        lexicalFetch.stringSortStyle = .lexical
        #expect(try context.fetch(lexicalFetch).map(\.name) == nsNames.sorted())
        var d = FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name)])
        d.stringSortStyle = .natural
        #expect(try context.fetch(d).map(\.name) == nsNatural)
        d.sortBy = [SortDescriptor(\.name, order: .reverse)]
        #expect(try context.fetch(d).map(\.name) == nsNatural.reversed())
        // Paging through a natural sort is stable and complete.
        var pages: [String] = []
        for page in 0..<5 {
            var p = FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name)])
            p.fetchOffset = page * 4
            p.fetchLimit = 4
            pages += try context.fetch(p).map(\.name)
        }
        #expect(pages == nsNatural)
        // Swift sorts as the fetch does, the descriptor's comparator included.
        let all = try context.fetch(FetchDescriptor<NsUser>())
        #expect(all.sorted(using: [SortDescriptor(\.name)], stringSortStyle: .natural).map(\.name) == nsNatural)
        #expect(
            all.sorted(using: [SortDescriptor(\.name, comparator: .lexical)], stringSortStyle: .natural).map(\.name)
                == nsNames.sorted())
    }

    @Test(
        "natural sort: optional strings, to-one key paths, several keys and pending changes agree with Swift (plain sorts: fetching suite, FET-05)",
        arguments: StoreKind.allCases)
    func shapes(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "natural-shapes")
        let container = try nsContainer(kind, dir)
        try nsSeed(ModelContext(container))
        let context = ModelContext(container)
        let sorts: [[SortDescriptor<NsUser>]] = [
            [SortDescriptor(\.nickname)], [SortDescriptor(\.nickname, order: .reverse), SortDescriptor(\.name)],
            [SortDescriptor(\.team?.name), SortDescriptor(\.seq)],
            [SortDescriptor(\.team?.name, order: .reverse), SortDescriptor(\.name)],
            [SortDescriptor(\.seq, order: .reverse)],
        ]
        for pending in [false, true] {
            if pending {
                // Unsaved rows are merged and sorted in Swift with the same order.
                context.insert(NsUser(name: "User 3", nickname: "file10", seq: 100))
                context.insert(NsUser(name: "user 20", nickname: nil, seq: 101))
            }
            let all = try context.fetch(FetchDescriptor<NsUser>())
            for order in sorts {
                var d = FetchDescriptor<NsUser>(sortBy: order)
                d.stringSortStyle = .natural
                let expected = all.sorted(using: order + [SortDescriptor(\.seq)], stringSortStyle: .natural).map(\.seq)
                #expect(try context.fetch(d).map(\.seq) == expected, "\(order.count) keys, pending \(pending)")
            }
        }
    }

    @Test(
        "FET-06 a container configured .lexical sorts every fetch by <; a descriptor can ask for .natural",
        arguments: StoreKind.allCases)
    func configuration(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "natural-config")
        let container = try nsContainer(kind, dir, style: .lexical)
        #expect(container.configurations.first?.stringSortStyle == .lexical)
        try nsSeed(ModelContext(container))
        let context = ModelContext(container)
        #expect(
            try context.fetch(FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name)])).map(\.name) == nsNames.sorted()
        )
        var d = FetchDescriptor<NsUser>(sortBy: [SortDescriptor(\.name)])
        d.stringSortStyle = .natural
        #expect(try context.fetch(d).map(\.name) == nsNatural)
    }
}
