import OpenSwiftDataTesting
import XCTest

final class PersistenceConformance: XCTestCase {
    func testUniqueness() throws { try ConformanceSuite.uniqueness.verify(store: .disk) }
}
