import Foundation
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@Suite("Store pair reporting")
struct StorePairReportingTests {
    @Test("a failure lists every failing store and the caller's file and line")
    func everyStoreAndLocation() throws {
        let pair = try StorePair(schema: Schema([AccountUser.self]), seed: 9)
        let line = #line + 1
        let error = #expect(throws: ConformanceFailure.self) {
            try pair.run("both wrong", reference: { 1 }) { _, store in store == .memory ? 2 : 3 }
        }
        #expect(error?.failingStores == [.memory, .disk])
        #expect(error?.actual == "2" && error?.otherStores.first?.actual == "3")
        #expect(error?.location == "OpenSwiftDataTestingTests/StorePairReportingTests.swift:\(line)")
        #expect(error?.description.contains("memory and disk") == true)
        #expect(error?.description.contains("StorePairReportingTests.swift:\(line)") == true)

        let onlyDisk = #expect(throws: ConformanceFailure.self) {
            try pair.run("disk throws", reference: { 0 }) { context, store in
                if store == .disk { throw SwiftDataError.unsupportedPredicate }
                return try context.fetchCount(FetchDescriptor<AccountUser>())
            }
        }
        #expect(onlyDisk?.failingStores == [.disk])
        #expect(onlyDisk?.actual.contains("SwiftDataError") == true)
    }
}
