import Foundation
import Testing

@testable import OpenSwiftData

// CloudKit-style models: every relationship optional, to-many ones as `[T]?` (CloudKit requires it).

/// One-to-many with a declared cascade inverse on the to-many side.
@Model final class OtmFolder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \OtmItem.folder) var items: [OtmItem]? = []
    init(name: String) { self.name = name }
}

@Model final class OtmItem {
    var title: String
    var rank: Int
    var folder: OtmFolder?
    /// Many-to-many, both sides optional; `OtmLabel.items` declares the inverse.
    var labels: [OtmLabel]?
    init(title: String, rank: Int = 0) {
        self.title = title
        self.rank = rank
    }
}

@Model final class OtmLabel {
    var name: String
    @Relationship(inverse: \OtmItem.labels) var items: [OtmItem]? = nil
    init(name: String) { self.name = name }
}

/// One-to-many whose inverse is declared on the to-one side, nullify by default.
@Model final class OtmShelf {
    var name: String
    var books: [OtmBook]?
    init(name: String, books: [OtmBook]? = nil) {
        self.name = name
        self.books = books
    }
}

@Model final class OtmBook {
    var title: String
    @Relationship(inverse: \OtmShelf.books) var shelf: OtmShelf?
    init(title: String) { self.title = title }
}

/// `.deny` on an optional to-many.
@Model final class OtmTeam {
    var name: String
    @Relationship(deleteRule: .deny) var members: [OtmMember]? = []
    init(name: String) { self.name = name }
}

@Model final class OtmMember {
    var name: String
    var team: OtmTeam?
    init(name: String) { self.name = name }
}

private let otmTypes: [any PersistentModel.Type] = [
    OtmFolder.self, OtmItem.self, OtmLabel.self, OtmShelf.self,
    OtmBook.self, OtmTeam.self, OtmMember.self,
]

/// Folders f0…f3 with 0, 1, 2, 3 items; items i0…i5 (rank = n); labels red (i0, i1, i2, i4), blue (i1), none.
private struct OtmFixture {
    let dir: ScratchDirectory
    let container: ModelContainer
    let context: ModelContext

    init(_ kind: StoreKind) throws {
        dir = try ScratchDirectory(prefix: "optional-to-many")
        container = try kind.makeContainer(for: otmTypes, in: dir)
        let writer = ModelContext(container)
        let red = OtmLabel(name: "red")
        let blue = OtmLabel(name: "blue")
        let none = OtmLabel(name: "none")
        [red, blue, none].forEach(writer.insert)
        var n = 0
        for f in 0..<4 {
            let folder = OtmFolder(name: "f\(f)")
            writer.insert(folder)
            for _ in 0..<f {
                let item = OtmItem(title: "i\(n)", rank: n)
                writer.insert(item)
                item.folder = folder
                if n % 2 == 0 { item.labels = [red] }
                if n == 1 { item.labels = [red, blue] }
                n += 1
            }
        }
        try writer.save()
        context = ModelContext(container)
    }

    /// The names the store returns for `p`, checked against `Predicate.evaluate` over every folder.
    func folders(_ p: Predicate<OtmFolder>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let fetched = try context.fetch(FetchDescriptor(predicate: p, sortBy: [SortDescriptor(\.name)])).map(\.name)
        let all = try context.fetch(FetchDescriptor<OtmFolder>(sortBy: [SortDescriptor(\.name)]))
        #expect(
            fetched == (try all.filter { try p.evaluate($0) }.map(\.name)), "store and Swift differ",
            sourceLocation: sourceLocation)
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: p)) == fetched.count, "fetchCount",
            sourceLocation: sourceLocation)
        return fetched
    }

    /// The same for labels.
    func labels(_ p: Predicate<OtmLabel>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let fetched = try context.fetch(FetchDescriptor(predicate: p, sortBy: [SortDescriptor(\.name)])).map(\.name)
        let all = try context.fetch(FetchDescriptor<OtmLabel>(sortBy: [SortDescriptor(\.name)]))
        #expect(
            fetched == (try all.filter { try p.evaluate($0) }.map(\.name)), "store and Swift differ",
            sourceLocation: sourceLocation)
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: p)) == fetched.count, "fetchCount",
            sourceLocation: sourceLocation)
        return fetched
    }
}

@Suite("Optional to-many relationships")
struct OptionalToManyTests {
    @Test(
        "a [Model]? property is an optional to-many relationship in the schema and the store model",
        arguments: StoreKind.allCases)
    func schema(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "otm-schema")
        let container = try kind.makeContainer(for: otmTypes, in: dir)
        let folder = try #require(container.schema.entitiesByName["OtmFolder"])
        let items = try #require(folder.relationships.first { $0.name == "items" })
        #expect(!items.isToOneRelationship)
        #expect(items.isOptional)
        #expect(items.destination == "OtmItem")
        #expect(items.deleteRule == .cascade)
        #expect(items.inverseName == "folder")
        let labels = try #require(
            container.schema.entitiesByName["OtmItem"]?.relationships.first { $0.name == "labels" })
        #expect(labels.inverseName == "items", "many-to-many inverse declared on the other side")
        let books = try #require(
            container.schema.entitiesByName["OtmShelf"]?.relationships.first { $0.name == "books" })
        #expect(books.inverseName == "shelf", "inverse declared on the to-one side")
        // The store model marks it optional, as SwiftData's Core Data model does (CloudKit requires it).
        let model = StoreModel(container.schema)
        let stored = try #require(
            model.entities.first { $0.name == "OtmFolder" }?.relationships.first { $0.name == "items" })
        #expect(stored.isOptional && stored.isToMany)
    }

    /// SwiftData materialises an optional to-many as an empty array, never nil (decision in the
    /// article "What works today", "Optional to-many relationships").
    @Test(
        "an optional to-many reads [] and never nil: unmanaged, after = nil, inserted, saved, fetched",
        arguments: StoreKind.allCases)
    func neverNil(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "otm-nil")
        let container = try kind.makeContainer(for: otmTypes, in: dir)
        let shelf = OtmShelf(name: "s", books: nil)
        #expect(shelf.books != nil && shelf.books!.isEmpty, "unmanaged, initialised with nil")
        let label = OtmLabel(name: "l")
        #expect(label.items == [], "default nil")
        let context = ModelContext(container)
        context.insert(shelf)
        context.insert(label)
        #expect(shelf.books == [])
        let book = OtmBook(title: "b")
        context.insert(book)
        shelf.books = [book]
        #expect(book.shelf === shelf)
        shelf.books = nil
        #expect(shelf.books == [], "assigning nil clears the relationship")
        #expect(book.shelf == nil, "and its inverse")
        try context.save()
        let reader = ModelContext(container)
        let shelves = try reader.fetch(FetchDescriptor<OtmShelf>())
        #expect(shelves.count == 1 && shelves[0].books == [])
        #expect(try reader.fetch(FetchDescriptor<OtmLabel>())[0].items == [])
    }

    @Test(
        "[Model]? inverses stay in sync: declared on the to-one side, inferred, declared many-to-many with both sides optional (plain lists: relationships suite, REL-01, REL-02, REL-03)",
        arguments: StoreKind.allCases)
    func inverseSync(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory(prefix: "otm-inverse")
        let container = try kind.makeContainer(for: otmTypes, in: dir)
        let context = ModelContext(container)
        let folder = OtmFolder(name: "f")
        let other = OtmFolder(name: "g")
        let a = OtmItem(title: "a")
        let b = OtmItem(title: "b")
        [folder, other].forEach(context.insert)
        [a, b].forEach(context.insert)
        a.folder = folder  // to-one side → optional list
        #expect(folder.items?.map(\.title) == ["a"])
        folder.items?.append(b)  // optional list → to-one side
        #expect(b.folder === folder)
        other.items = [a]  // moving a: leaves folder's list
        #expect(a.folder === other && folder.items?.map(\.title) == ["b"])
        folder.items?.removeAll()  // REL-03: removing clears the inverse, deletes nothing
        #expect(b.folder == nil)
        let shelf = OtmShelf(name: "s")
        let book = OtmBook(title: "t")
        context.insert(shelf)
        context.insert(book)
        book.shelf = shelf  // inverse declared on the to-one side
        #expect(shelf.books?.map(\.title) == ["t"])
        let red = OtmLabel(name: "red")
        context.insert(red)
        a.labels = [red]  // many-to-many, both sides optional
        #expect(red.items?.map(\.title) == ["a"])
        red.items?.append(b)
        #expect(b.labels?.map(\.name) == ["red"])
        try context.save()
        let reader = ModelContext(container)
        let items = try reader.fetch(FetchDescriptor<OtmItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(items.map { $0.folder?.name ?? "nil" } == ["g", "nil"])
        #expect(items.map { $0.labels?.map(\.name) ?? [] } == [["red"], ["red"]])
        let redAgain = try #require(try reader.fetch(FetchDescriptor<OtmLabel>()).first)
        #expect(Set(redAgain.items?.map(\.title) ?? []) == ["a", "b"])
        #expect(try reader.fetch(FetchDescriptor<OtmShelf>())[0].books?.map(\.title) == ["t"])
        #expect(try reader.fetchCount(FetchDescriptor<OtmItem>()) == 2, "REL-03: nothing deleted")
    }

    @Test(
        "cascade, nullify and deny through [Model]? relationships, deny included (the rules: deleteRules suite, DEL-02, DEL-06, DEL-08)",
        arguments: StoreKind.allCases)
    func deleteRules(_ kind: StoreKind) throws {
        let fixture = try OtmFixture(kind)
        let context = fixture.context
        // DEL-02: cascade — f3's three items go with it, before and after the save.
        let f3 = try #require(
            try context.fetch(FetchDescriptor<OtmFolder>(predicate: #Predicate { $0.name == "f3" })).first)
        context.delete(f3)
        #expect(try context.fetchCount(FetchDescriptor<OtmItem>()) == 3, "pending-aware fetches see the cascade")
        try context.save()
        #expect(try ModelContext(fixture.container).fetchCount(FetchDescriptor<OtmItem>()) == 3)
        // DEL-06: nullify many-to-many — deleting an item removes it from the labels' lists.
        let red = try #require(
            try context.fetch(FetchDescriptor<OtmLabel>(predicate: #Predicate { $0.name == "red" })).first)
        let before = red.items?.count ?? 0
        let item = try #require(red.items?.first)
        context.delete(item)
        try context.save()
        #expect(red.items?.count == before - 1)
        let reloaded = try ModelContext(fixture.container).fetch(
            FetchDescriptor<OtmLabel>(predicate: #Predicate { $0.name == "red" }))
        #expect(reloaded.first?.items?.count == before - 1)
        // DEL-08: deny — a team with members cannot be deleted; an empty one can.
        let team = OtmTeam(name: "t")
        let empty = OtmTeam(name: "e")
        let member = OtmMember(name: "m")
        [team, empty].forEach(context.insert)
        context.insert(member)
        member.team = team
        try context.save()
        context.delete(team)
        #expect(throws: SwiftDataError.self) { try context.save() }
        context.rollback()
        context.delete(empty)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<OtmTeam>()).map(\.name) == ["t"])
    }

    @Test("PRD optional-chained predicates and counts equal Predicate.evaluate", arguments: StoreKind.allCases)
    func predicates(_ kind: StoreKind) throws {
        let f = try OtmFixture(kind)
        #expect(try f.folders(#Predicate { $0.items?.contains { $0.rank > 4 } == true }) == ["f3"])
        #expect(try f.folders(#Predicate { $0.items?.contains { $0.title == "i0" } == false }) == ["f0", "f2", "f3"])
        #expect(try f.folders(#Predicate { ($0.items?.count ?? 0) > 2 }) == ["f3"])
        #expect(try f.folders(#Predicate { $0.items?.count ?? 0 >= 1 }) == ["f1", "f2", "f3"])
        #expect(try f.folders(#Predicate { $0.items?.isEmpty == true }) == ["f0"])
        #expect(try f.folders(#Predicate { $0.items?.isEmpty ?? true }) == ["f0"])
        #expect(try f.folders(#Predicate { !($0.items?.isEmpty ?? true) }) == ["f1", "f2", "f3"])
        #expect(
            try f.folders(#Predicate { $0.items.flatMap { $0.allSatisfy { $0.rank >= 1 } } ?? false }) == [
                "f0", "f2", "f3",
            ])
        #expect(
            try f.folders(#Predicate { ($0.items?.filter { $0.rank % 2 == 0 }.count ?? 0) == 1 }) == ["f1", "f2", "f3"])
        #expect(try f.folders(#Predicate { $0.items == nil }) == [], "never nil")
        #expect(try f.folders(#Predicate { $0.items != nil }) == ["f0", "f1", "f2", "f3"])
        // Many-to-many through optional lists on both sides.
        #expect(try f.labels(#Predicate { ($0.items?.count ?? 0) == 4 }) == ["red"])
        #expect(
            try f.labels(
                #Predicate { $0.items?.contains { $0.labels?.contains { $0.name == "blue" } == true } == true }) == [
                    "blue", "red",
                ])
        #expect(try f.labels(#Predicate { $0.items?.isEmpty == true }) == ["none"])
        // Through the to-one side of an optional to-many.
        let items = try f.context.fetch(
            FetchDescriptor<OtmItem>(predicate: #Predicate { ($0.folder?.items?.count ?? 0) == 2 }))
        #expect(Set(items.map(\.title)) == ["i1", "i2"])
    }

    @Test(
        "FET sorting: other keys sort normally, a key path through the optional list throws a clear error",
        arguments: StoreKind.allCases)
    func sorting(_ kind: StoreKind) throws {
        let f = try OtmFixture(kind)
        let names = try f.context.fetch(FetchDescriptor<OtmFolder>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
            .map(\.name)
        #expect(names == ["f3", "f2", "f1", "f0"])
        #expect(throws: SwiftDataError.self) {
            try f.context.fetch(FetchDescriptor<OtmFolder>(sortBy: [SortDescriptor(\.items?.count)]))
        }
    }

    @Test("pending changes: unsaved links are visible to optional-chained predicates", arguments: StoreKind.allCases)
    func pending(_ kind: StoreKind) throws {
        let f = try OtmFixture(kind)
        let f0 = try #require(
            try f.context.fetch(FetchDescriptor<OtmFolder>(predicate: #Predicate { $0.name == "f0" })).first)
        let item = OtmItem(title: "new", rank: 99)
        f.context.insert(item)
        f0.items?.append(item)
        #expect(try f.folders(#Predicate { $0.items?.contains { $0.rank == 99 } == true }) == ["f0"])
        #expect(
            try f.context.fetchCount(FetchDescriptor<OtmFolder>(predicate: #Predicate { $0.items?.isEmpty == true }))
                == 0)
    }
}

extension OptionalToManyTests {
    @Test(
        "a [Model]? list reached through an optional to-one is nil when the to-one is (plain to-one chains: predicates suite, PRD-09)",
        arguments: StoreKind.allCases)
    func throughToOne(_ kind: StoreKind) throws {
        let f = try OtmFixture(kind)
        f.context.insert(OtmItem(title: "loose", rank: 50))
        try f.context.save()
        func titles(_ p: Predicate<OtmItem>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
            let fetched = try f.context.fetch(FetchDescriptor(predicate: p, sortBy: [SortDescriptor(\.title)])).map(
                \.title)
            let all = try f.context.fetch(FetchDescriptor<OtmItem>(sortBy: [SortDescriptor(\.title)]))
            #expect(
                fetched == (try all.filter { try p.evaluate($0) }.map(\.title)), "store and Swift differ",
                sourceLocation: sourceLocation)
            return fetched
        }
        #expect(try titles(#Predicate { $0.folder?.items?.isEmpty == false }) == ["i0", "i1", "i2", "i3", "i4", "i5"])
        #expect(
            try titles(#Predicate { $0.folder?.items?.isEmpty != true }) == [
                "i0", "i1", "i2", "i3", "i4", "i5", "loose",
            ])
        #expect(try titles(#Predicate { $0.folder?.items == nil }) == ["loose"])
        #expect(try titles(#Predicate { $0.folder?.items?.contains { $0.rank == 0 } == true }) == ["i0"])
    }
}
