import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// The message of an untranslatable predicate names the part, says why, and then says what to
/// write instead, as one sentence a user can act on.
@Suite("Unsupported predicate messages")
struct UnsupportedPredicateMessageTests {
    private func message(_ predicate: Predicate<ConformanceBook>) throws -> String {
        let f = try PredicateFixture(.memory)
        do {
            _ = try f.context.fetch(FetchDescriptor(predicate: predicate))
        } catch let error as SwiftDataError {
            return error.description
        }
        Issue.record("the fetch did not throw")
        return ""
    }

    @Test("PRD-17: a force unwrap names the unwrap, then the alternatives")
    func forceUnwrap() throws {
        let text = try message(#Predicate<ConformanceBook> { $0.stock! == 1 })
        #expect(
            text.contains(
                "the predicate uses a force unwrap (!), which cannot be translated to SQL with Swift's exact semantics; use flatMap, ?? or an optional comparison instead"
            ), "\(text)")
    }

    @Test("PRD-18: a part without a specific alternative points to the supported operators")
    func generalAdvice() throws {
        let text = try message(#Predicate<ConformanceBook> { $0.title.contains(/a+/) })
        #expect(text.contains("a regular expression"), "\(text)")
        #expect(text.contains("rewrite that part with stored attributes"), "\(text)")
    }
}
