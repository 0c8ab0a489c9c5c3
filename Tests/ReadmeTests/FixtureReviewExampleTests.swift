import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

/// Runs the fixture-review example of the fixtures article.
@Suite("Fixture review example")
struct FixtureReviewExampleTests {
    @Test("FIX-22: the review example accepts one changed row and refuses more than allowed")
    func review() throws {
        let scratch = try ScratchDirectory(prefix: "readme-fixture-review")
        let committed = scratch.url.appendingPathComponent("users.sqlite")
        let regenerated = scratch.url.appendingPathComponent("users-new.sqlite")
        _ = try FixtureFile.write(.users, seed: 1, scale: 20, to: committed)
        _ = try FixtureFile.write(.users, seed: 1, scale: 20, to: regenerated)
        #expect(try reviewFixtureChange(committed: committed, regenerated: regenerated, allowed: 0).ok)

        let db = try SQLiteConnection(path: regenerated.path)
        try db.execute("UPDATE ZACCOUNTUSER SET ZSCORE = ZSCORE + 1 WHERE Z_PK IN (1, 2)")
        db.close()
        let review = try reviewFixtureChange(committed: committed, regenerated: regenerated, allowed: 1)
        #expect(!review.ok)
        #expect(review.text.contains("AccountUser (by ZUSERNAME): 0 added, 0 removed, 2 changed"), "\(review.text)")
        #expect(try reviewFixtureChange(committed: committed, regenerated: regenerated, allowed: 2).ok)
    }
}
