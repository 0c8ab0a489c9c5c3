import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// A small fixture to share, cut from a store copied from a device: 50 orders picked by the seed,
/// the customers they point at, customers' emails and names scrubbed. The device copy keeps its bytes.
func shareableFixture(from store: URL, to fixture: URL) throws -> FixtureSubset.Summary {
    let summary = try FixtureSubset.write(
        from: store, schema: shop,
        keep: ["Order": 50, "Customer": FixtureSubset.all],  // every customer; products, addresses: empty
        seed: 7,
        scrub: [
            FixtureScrub.Rule(entity: "Customer", attribute: "email", kind: .email),  // unique: stays unique
            FixtureScrub.Rule(entity: "Customer", attribute: "name"),  // kind inferred from the values
        ],
        to: fixture)
    // Integrity, no key to a missing row, opens with the schema.
    guard summary.isValid else { throw CocoaError(.fileWriteUnknown) }
    return summary
}
