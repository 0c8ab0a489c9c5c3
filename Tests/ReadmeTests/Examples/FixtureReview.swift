import Foundation
import OpenSwiftDataTesting

/// A check for code review: the fixture a change regenerated keeps the committed fixture's
/// schema and changes at most `allowed` rows; the text is the failure message.
func reviewFixtureChange(committed: URL, regenerated: URL, allowed: Int) throws -> (ok: Bool, text: String) {
    let diff = try FixtureDiff(committed, regenerated)
    return (diff.schemaIsIdentical && diff.changedRows <= allowed, diff.text(limit: 5))
}
