import Foundation
import OpenSwiftData
import Testing

@testable import OpenSwiftDataTesting

/// The reference model the change scripts run against (``OracleGraph``): its own semantics,
/// and proof that it catches a context bug that both stores share.
@Suite("Change-script oracle")
struct OracleTests {
    /// A graph over the dictionary schema: categories unique by name, cascading to their words.
    static func dictionary() -> OracleGraph {
        OracleGraph(schema: OracleSchema(SampleSchema.dictionary.schema))
    }

    @Test("DEL-02 DEL-15 REL-02: a cascade deletes the words at once, a rollback restores them")
    func cascadeAndRollback() {
        let g = Self.dictionary()
        let c = g.add("DictionaryCategory", ["name": "\"a\""], linked: false)
        let w = g.add("DictionaryWord", ["text": "\"x\"", "length": "1"], linked: false)
        g.link(w, "category", c)
        #expect(g.members(c, "words") == [w])
        #expect(g.save() == nil)
        g.delete(c)
        #expect(!g.isListed(w))
        g.rollback()
        #expect(g.isListed(w) && g.members(c, "words") == [w])
    }

    @Test("UNQ-10 UNQ-14 UNQ-30: new models collapse into the last, which takes over the stored row")
    func upserts() {
        let g = Self.dictionary()
        let stored = g.add("DictionaryCategory", ["name": "\"a\""], linked: false)
        let old = g.add("DictionaryWord", ["text": "\"old\"", "length": "3"], linked: false)
        g.link(old, "category", stored)
        #expect(g.save() == nil)
        let first = g.add("DictionaryCategory", ["name": "\"a\""], linked: false)
        let second = g.add("DictionaryCategory", ["name": "\"a\""], linked: false)
        let new = g.add("DictionaryWord", ["text": "\"new\"", "length": "3"], linked: false)
        g.link(new, "category", second)
        #expect(g.save() == nil)
        #expect(g.resolve(first) == stored && g.resolve(second) == stored)
        #expect(g.members(stored, "words") == [new])
        #expect(g.members(old, "category").isEmpty && g.isListed(old))
    }

    @Test("UNQ-18 CTX-03: a refused save returns its error code and keeps the pending state")
    func refusals() {
        let g = OracleGraph(schema: OracleSchema(SampleSchema.users.schema))
        _ = g.add("AccountUser", ["id": "1", "username": "\"a\""], linked: false)
        _ = g.add("AccountUser", ["id": "2", "username": "\"b\""], linked: false)
        #expect(g.save() == nil)
        let both = g.add("AccountUser", ["id": "1", "username": "\"b\""], linked: false)
        #expect(g.save() == "uniqueConstraintViolation")
        #expect(g.isListed(both))
    }

    /// The change scripts of seed 1 whose steps delete categories (DEL-02, DEL-04): with
    /// cascades acting as nullify in every store, the stores still agree with each other, and
    /// only the reference model notices.
    @Test(
        "DEL-02 DEL-04: a context fault both stores share (cascade acts as nullify) fails the oracle, not the store comparison"
    )
    func catchesSharedFault() throws {
        let harness = try #require(
            ReliabilityProbes.harness(), "the harness executable was not found beside the test bundle")
        func run(oracle: Bool) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = harness
            process.arguments = [
                "conform", "--suite", "differential", "--seed", "1", "--case", "9,29,49,69,89,109", "--no-shrink",
            ]
            var environment = ProcessInfo.processInfo.environment
            environment[FaultInjection.environmentVariable] = InjectedFault.cascadeNullifies.rawValue
            environment[DifferentialHarness.oracleEnvironmentVariable] = oracle ? "on" : "off"
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        let withOracle = try run(oracle: true)
        #expect(withOracle.status != 0, "\(withOracle.output)")
        #expect(withOracle.output.contains("] oracle: "), "\(withOracle.output)")
        #expect(withOracle.output.contains("expected: oracle ("), "\(withOracle.output)")
        #expect(withOracle.output.contains("replay: harness conform --suite differential --seed 1 --case "))
        let storesOnly = try run(oracle: false)
        #expect(storesOnly.status == 0, "\(storesOnly.output)")
    }
}
