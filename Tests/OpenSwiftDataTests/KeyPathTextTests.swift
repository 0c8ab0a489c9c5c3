import Foundation
import OpenSwiftDataTesting
import Testing

@testable import OpenSwiftData

/// Key paths in messages carry names, never the address Swift prints for a computed property.
@Suite("Key path text")
struct KeyPathTextTests {
    @Test("an address is replaced by the component's type")
    func addresses() {
        #expect(
            KeyPathText.withoutAddresses("\\Invoice.<computed 0x000055f89b306720 (Bool)>")
                == "\\Invoice.<computed property of type Bool>")
        #expect(
            KeyPathText.withoutAddresses("\\A.b.<computed 0x1f (Optional<Int>)>.c")
                == "\\A.b.<computed property of type Optional<Int>>.c")
        #expect(KeyPathText.withoutAddresses("\\A.name") == "\\A.name")
        #expect(KeyPathText.withoutAddresses("\\A.<computed 0x12") == "\\A.<computed 0x12")
    }

    @Test("PRD-18: a model's key path is named by its layout; a computed one loses its address")
    func modelKeyPaths() throws {
        let layout = try #require(ModelLayout.known(ConformanceBook.self))
        #expect(KeyPathText.readable(\ConformanceBook.title, layout: layout) == "\\ConformanceBook.title")
        let f = try PredicateFixture(.memory)
        do {
            _ = try f.context.fetch(FetchDescriptor(predicate: #Predicate<ConformanceBook> { $0.shoutedTitle == "A" }))
            Issue.record("a predicate on a computed property fetched")
        } catch let error as SwiftDataError {
            #expect(error.code == SwiftDataError.unsupportedKeyPath.code)
            #expect(!error.description.contains("0x"), "\(error)")
            #expect(error.description.contains("<computed property of type String>"), "\(error)")
        }
    }
}
