import Foundation
import OpenSwiftData
import Testing

/// Context behaviour the differential change scripts found to depend on whether a to-many list
/// had been read before a change (`harness conform --suite differential`, seed 1). Each test runs
/// the same steps with the list loaded first and not, on both stores, and expects one answer.
@Suite("Loaded and unloaded lists agree")
struct ScriptFindingsTests {
    /// A category with words a and b, and two tags on products — saved through `context`.
    func seeded(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> (ModelContext, ModelContainer) {
        let container = try kind.makeContainer(for: [Category.self, Word.self, Product.self, Tag.self], in: dir)
        let context = ModelContext(container)
        let c = Category(name: "c")
        context.insert(c)
        for t in ["a", "b"] {
            let w = Word(text: t)
            context.insert(w)
            w.category = c
        }
        let t1 = Tag(label: "t1")
        let t2 = Tag(label: "t2")
        context.insert(t1)
        context.insert(t2)
        let p = Product(name: "p", price: 1)
        context.insert(p)
        p.tags = [t1]
        try context.save()
        return (context, container)
    }

    func category(_ context: ModelContext) throws -> Category { try context.fetch(FetchDescriptor<Category>()).first! }
    func word(_ context: ModelContext, _ text: String) throws -> Word {
        try context.fetch(FetchDescriptor<Word>(predicate: #Predicate { $0.text == text })).first!
    }

    @Test(
        "a pending-deleted child stays in its parent's list until delete rules run, loaded or not (the rules: deleteRules suite, DEL-06, DEL-10)",
        arguments: StoreKind.allCases, [false, true])
    func pendingDelete(_ kind: StoreKind, loadFirst: Bool) throws {
        let dir = try ScratchDirectory()
        let (context, _) = try seeded(kind, dir)
        if loadFirst { _ = try category(context).words.count }
        let parent = try category(context)
        context.delete(try word(context, "b"))
        #expect(parent.words.map(\.text).sorted() == ["a", "b"])
        // A fetch with pending changes runs the delete rules (nullify): the word leaves the list.
        #expect(try category(context).words.map(\.text).sorted() == ["a"])
        try context.save()
        #expect(try category(context).words.map(\.text) == ["a"])
    }

    @Test(
        "rollback of a child inserted into a saved parent, whose list was read after the insert (plain rollback: lifecycle suite, CTX-03)",
        arguments: StoreKind.allCases, [false, true])
    func rollbackInsert(_ kind: StoreKind, loadFirst: Bool) throws {
        let dir = try ScratchDirectory()
        let (context, _) = try seeded(kind, dir)
        let c = try category(context)
        if loadFirst { _ = c.words.count }
        let w = Word(text: "new")
        context.insert(w)
        w.category = c
        #expect(c.words.map(\.text).sorted() == ["a", "b", "new"])
        context.rollback()
        #expect(c.words.map(\.text).sorted() == ["a", "b"])
        #expect(try context.fetchCount(FetchDescriptor<Word>()) == 2)
    }

    @Test(
        "a cascade-deleted model that changed a many-to-many list in the same save leaves no join rows (the rules: deleteRules suite, DEL-02, DEL-06)",
        arguments: StoreKind.allCases, [false, true])
    func noDanglingPairs(_ kind: StoreKind, loadFirst: Bool) throws {
        let dir = try ScratchDirectory()
        let (context, container) = try seeded(kind, dir)
        let t2 = try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.label == "t2" })).first!
        if loadFirst { _ = t2.products.count }
        let p = try context.fetch(FetchDescriptor<Product>()).first!
        p.tags.append(t2)  // a new pair, written at the next save…
        context.delete(p)  // …but the product goes in the same save
        try context.save()
        let pairs = try container.withStoreConnection { db -> Int64 in
            guard
                let name = container.storeNames.table("Product").map({ _ in
                    "Z_\(container.storeNames.entityNumber("Product")!)TAGS"
                })
            else { return -1 }
            guard case .integer(let n)? = try db.scalar("SELECT count(*) FROM \"\(name)\"") else { return -1 }
            return n
        }
        #expect(pairs == 0)
        #expect(t2.products.isEmpty)
    }
}

extension ScriptFindingsTests {
    @Test(
        "an unsaved insert linked to a saved parent, then deleted, is never written, list loaded or not (the plain case: deleteRules suite, DEL-09)",
        arguments: StoreKind.allCases, [false, true])
    func deleteUnsavedInsert(_ kind: StoreKind, loadFirst: Bool) throws {
        let dir = try ScratchDirectory()
        let (context, container) = try seeded(kind, dir)
        let c = try category(context)
        let tags = try context.fetch(FetchDescriptor<Tag>())
        if loadFirst {
            _ = c.words.count
            _ = tags.map(\.products.count)
        }
        let w = Word(text: "new")
        context.insert(w)
        w.category = c
        let p = Product(name: "new", price: 2)
        context.insert(p)
        p.tags = tags
        context.delete(w)
        context.delete(p)
        #expect(c.words.map(\.text).sorted() == ["a", "b"])
        #expect(tags.allSatisfy { !$0.products.contains { $0 === p } })
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Word>()) == 2)
        #expect(try fresh.fetchCount(FetchDescriptor<Product>()) == 1)
    }

    @Test(
        "a saved child moved to an unsaved parent and deleted, then the parent deleted: the parent is never written, rules run between or not (DEL-09, REL-01)",
        arguments: StoreKind.allCases, [false, true])
    func deletedChildKeepsNoDroppedParent(_ kind: StoreKind, rulesBetween: Bool) throws {
        let dir = try ScratchDirectory()
        let (context, container) = try seeded(kind, dir)
        let parent = Category(name: "new")
        context.insert(parent)
        let a = try word(context, "a")
        a.category = parent
        context.delete(a)
        // The child's delete rule (nullify) takes it out of the new parent's list, not the
        // parent out of the deleted child.
        if rulesBetween { context.processPendingChanges() }
        context.delete(parent)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Category>()).map(\.name) == ["c"], "rulesBetween \(rulesBetween)")
        #expect(try fresh.fetch(FetchDescriptor<Word>()).map(\.text) == ["b"])
    }

    @Test(
        "deleting an unsaved parent still cascades: its new child and a saved child moved to it go too (DEL-02, DEL-09)",
        arguments: StoreKind.allCases)
    func deleteUnsavedCascadingParent(_ kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, container) = try seeded(kind, dir)
        let parent = Category(name: "new")
        context.insert(parent)
        let child = Word(text: "new")
        context.insert(child)
        child.category = parent
        try word(context, "a").category = parent
        context.delete(parent)
        #expect(try context.fetch(FetchDescriptor<Word>()).map(\.text) == ["b"])
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Word>()).map(\.text) == ["b"])
        #expect(try fresh.fetchCount(FetchDescriptor<Category>()) == 1)
    }
}
