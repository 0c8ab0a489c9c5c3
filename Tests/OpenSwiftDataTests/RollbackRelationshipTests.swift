import Foundation
import OpenSwiftData
import Testing

/// Rollback restores both sides of relationships changed through their inverses (CTX-04),
/// including on models that are also pending deletion. Found by the differential change
/// scripts (`harness conform --suite differential --seed 1 --case 7359`).
@Suite("Rollback of relationship changes")
struct RollbackRelationshipTests {
    func seeded(_ kind: StoreKind, _ dir: ScratchDirectory) throws -> (ModelContext, Category, Word) {
        let context = ModelContext(try kind.makeContainer(for: [Category.self, Word.self], in: dir))
        let c = Category(name: "c1")
        let w = Word(text: "w")
        context.insert(c)
        context.insert(w)
        w.category = c
        try context.save()
        return (context, c, w)
    }

    @Test(
        "moving a child out and rolling back restores the parent's list (plain rollback: lifecycle suite, CTX-03)",
        arguments: StoreKind.allCases)
    func moveOut(kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, c, w) = try seeded(kind, dir)
        #expect(c.words.count == 1)
        w.category = nil
        #expect(c.words.isEmpty)
        context.rollback()
        #expect(w.category === c)
        #expect(c.words.map(\.text) == ["w"])
    }

    @Test(
        "deleting the parent, moving the child out, deleting the child, then rollback (plain rollback: lifecycle suite, CTX-03)",
        arguments: StoreKind.allCases)
    func deleteMoveDelete(kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, c, w) = try seeded(kind, dir)
        _ = c.words.count
        context.delete(c)
        w.category = nil
        context.delete(w)
        context.rollback()
        #expect(w.category === c)
        #expect(c.words.map(\.text) == ["w"])
        #expect(!c.isDeleted && !w.isDeleted)
        #expect(try context.fetchCount(FetchDescriptor<Word>()) == 1)
    }

    @Test(
        "deleting the parent (cascade pending) then rollback keeps both lists (plain rollback: lifecycle suite, CTX-03)",
        arguments: StoreKind.allCases)
    func deleteParent(kind: StoreKind) throws {
        let dir = try ScratchDirectory()
        let (context, c, w) = try seeded(kind, dir)
        _ = c.words.count
        context.delete(c)
        context.rollback()
        #expect(w.category === c)
        #expect(c.words.map(\.text) == ["w"])
    }
}
