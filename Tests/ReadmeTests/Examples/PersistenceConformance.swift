import OpenSwiftDataTesting
import XCTest

final class PersistenceConformance: XCTestCase {
    func testUniqueness() throws { try ConformanceSuite.uniqueness.verify(store: .disk) }
    func testShopRules() throws { try SchemaConformance(schema: shop, expecting: shopRules).verify(store: .disk) }
}
