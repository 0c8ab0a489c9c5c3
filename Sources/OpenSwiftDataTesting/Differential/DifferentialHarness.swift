import Foundation
import OpenSwiftData

/// The differential checks: random predicates and random change scripts over seeded data of
/// the sample schemas, run on the in-memory and on-disk stores and compared with plain Swift.
///
/// Case `i` of seed `s` is always the same case, so a failure is replayed with
/// `harness conform --suite differential --seed s --case i`, or from a test:
/// ```swift
/// let harness = try DifferentialHarness(seed: 1)
/// let report = harness.run(cases: 0..<1_000)   // or any collection of case numbers
/// #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description))")
/// try harness.verifyCase(417)   // throws the (shrunk) ConformanceFailure of one case
/// ```
/// Two cases in every `scriptInterval` are change scripts (inserts, updates, deletes, saves,
/// rollbacks on both stores in lockstep); the others are predicate cases over one of nine
/// entities of the catalogue, trips, users and dictionary schemas.
public final class DifferentialHarness {
    /// The seed every dataset and case derives from.
    public let seed: UInt64
    /// The stores checked.
    public let stores: [StoreKind]
    /// Whether a mismatching predicate is shrunk before it is reported.
    package var shrinks: Bool = true
    /// Whether change scripts also run against the reference model of SwiftData's semantics
    /// (``OracleGraph``) and must match it after every step and save, not only each other.
    /// On by default; `OPENSWIFTDATA_DIFFERENTIAL_ORACLE=off` in the environment turns it off
    /// (to show what the store-against-store comparison alone misses).
    package var checksOracle: Bool =
        ProcessInfo.processInfo.environment[
            DifferentialHarness.oracleEnvironmentVariable] != "off"
    /// `OPENSWIFTDATA_DIFFERENTIAL_ORACLE`: `off` runs the change scripts without the reference model.
    package static let oracleEnvironmentVariable = "OPENSWIFTDATA_DIFFERENTIAL_ORACLE"
    /// The period of the case layout: cases 9 and 19 of every 20 are change scripts.
    package static let scriptInterval = 20

    private var datasets: [String: DifferentialDataset] = [:]
    let targets: [DifferentialTarget]
    /// A user's schema and its fixture (``init(schema:seed:counts:fixture:stores:)``): the one dataset, named `schema`.
    private let userData: (schema: Schema, fixture: Fixture)?

    /// A harness for `seed` over `stores`; datasets are generated when a case first needs them.
    public init(seed: UInt64, stores: [StoreKind] = StoreKind.allCases) {
        self.seed = seed
        self.stores = stores
        userData = nil
        targets = [
            .of("catalogue", .catalogueProduct), .of("catalogue", .catalogueCategory), .of("catalogue", .catalogueTag),
            .of("trips", .travelTrip), .of("trips", .travelAccommodation), .of("trips", .travelMeal),
            .of("users", .accountUser), .of("dictionary", .dictionaryWord), .of("dictionary", .dictionaryCategory),
        ]
    }

    /// A harness over your own schema: entity profiles derived from it (every attribute by type,
    /// to-one chains, to-many collections, subclass tests and casts) and one dataset, `fixture`
    /// or automatic data (``Fixture/init(schema:seed:counts:defaultCount:traits:options:)``
    /// with `counts`).
    ///
    /// Cases are random predicates (depth ≤ 4) and sorts over one of the schema's root
    /// entities, checked on both stores against plain Swift over a third, private container:
    /// rows and order, `fetchCount`, the `p`/`!p` partition, paging and a pivot row; a mismatch
    /// is shrunk. One case in 50 (49, 99, …) is a change script derived from the schema
    /// (inserts and upserts on the declared unique constraints, updates, relationship changes,
    /// deletes under the declared rules, saves, rollbacks) on both stores in lockstep.
    /// ```swift
    /// let harness = DifferentialHarness(schema: Schema([Customer.self, Order.self]), seed: 1,
    ///                                   counts: ["Customer": 60, "Order": 300])
    /// let report = harness.run(cases: 0..<2_000)
    /// #expect(report.mismatches.isEmpty, "\(report.mismatches.map(\.description))")
    /// ```
    public init(
        schema: Schema, seed: UInt64, counts: [String: Int] = [:], fixture: Fixture? = nil,
        stores: [StoreKind] = StoreKind.allCases
    ) {
        self.seed = seed
        self.stores = stores
        let data =
            fixture
            ?? Fixture(
                schema: schema, seed: SeededGenerator.derive(seed, labels: ["dataset", "schema"]),
                counts: counts, defaultCount: 40, traits: [.hostile])
        userData = (schema, data)
        targets = SchemaProfiles(schema: schema).targets(dataset: "schema")
    }

    /// Sizes and traits of the datasets: small enough for thousands of cases, varied enough
    /// (hostile strings, several scripts, nils, empty and full relationships) to find bugs.
    static let datasetPlans: [String: (scale: Int, traits: Traits)] = [
        "catalogue": (150, [.hostile]), "trips": (60, []), "users": (120, [.unicodeHeavy, .hostile]),
        "dictionary": (300, [.unicodeHeavy]),
    ]

    func dataset(_ name: String) throws -> DifferentialDataset {
        if let d = datasets[name] { return d }
        if let userData {
            let d = try DifferentialDataset(name: name, schema: userData.schema, fixture: userData.fixture)
            try d.loadAll()
            datasets[name] = d
            return d
        }
        guard let sample = SampleSchema.named(name), let plan = DifferentialHarness.datasetPlans[name] else {
            preconditionFailure("no differential dataset named \(name)")
        }
        let d = try DifferentialDataset(
            sample: sample, seed: SeededGenerator.derive(seed, labels: ["dataset", name]),
            scale: plan.scale, traits: plan.traits)
        datasets[name] = d
        return d
    }

    /// The change-script kind of case `index`, or `nil` for a predicate case: in every 20 cases,
    /// case 19 is a users or catalogue script (alternately) and case 9 a dictionary script.
    /// (Kinds are added at new positions, so recorded cases keep their meaning.)
    func scriptKind(ofCase index: Int) -> String? {
        // A schema harness: one case in 50 is a change script (case 49, 99, …).
        guard userData == nil else { return index % 50 == 49 ? "schema" : nil }
        return DifferentialHarness.scriptKind(ofCase: index)
    }

    /// The change-script kind of case `index` in the sample schemas' run (see the instance method).
    package static func scriptKind(ofCase index: Int) -> String? {
        switch index % scriptInterval {
        case scriptInterval - 1: return ["users", "catalogue"][(index / scriptInterval) % 2]
        case 9: return "dictionary"
        default: return nil
        }
    }

    /// What case `index` is: `script <kind>` or `Entity (dataset)`.
    package func kind(ofCase index: Int) -> String {
        if let script = scriptKind(ofCase: index) { return "script \(script)" }
        let t = targets[index % targets.count]
        return "\(t.entity) (\(t.dataset))"
    }

    /// Runs case `index`; returns the number of checks made, or throws its ``ConformanceFailure``.
    @discardableResult
    public func verifyCase(_ index: Int) throws -> Int {
        do {
            return try checkCase(index)
        } catch let all as DifferentialFailures {
            throw all.failures[0]
        }
    }

    /// Runs case `index`; a mismatch throws ``DifferentialFailures`` (one per store) or a
    /// ``ConformanceFailure``.
    func checkCase(_ index: Int) throws -> Int {
        var random = SeededGenerator(seed: SeededGenerator.derive(seed, labels: ["case"], index: UInt64(index)))
        do {
            if let kind = scriptKind(ofCase: index), let userData {
                _ = kind
                var script = SchemaScript(harness: self, schema: userData.schema, index: index, random: &random)
                return try script.run()
            }
            if let kind = scriptKind(ofCase: index) {
                var script = MutationScript(harness: self, index: index, kind: kind, random: &random)
                return try script.run()
            }
            return try targets[index % targets.count].run(self, index, &random)
        } catch let f as ConformanceFailure {
            throw f
        } catch let all as DifferentialFailures {
            throw all
        } catch {
            throw ConformanceFailure(
                suite: "differential", caseID: "setup #\(index)", store: nil, seed: seed,
                check: "setting up \(kind(ofCase: index))", expected: "no error", actual: "\(error)",
                trace: ["seed=\(seed)", "case=\(index)"])
        }
    }

    /// Runs `cases` in order, collecting mismatches (it stops once there are `maxFailures`).
    ///
    /// `progress` is called after every case with the number done. Without it, a run longer
    /// than ten seconds prints a line on standard error every ten seconds
    /// (`OPENSWIFTDATA_PROGRESS=0` turns that off).
    public func run<Cases: Collection<Int>>(
        cases: Cases, maxFailures: Int = 10,
        progress: ((Int) -> Void)? = nil
    ) -> DifferentialReport {
        let start = DispatchTime.now().uptimeNanoseconds
        var report = DifferentialReport(seed: seed)
        report.requested = cases.count
        var lines =
            progress == nil ? LongRunProgress(label: "DifferentialHarness seed \(seed)", total: cases.count) : nil
        for index in cases {
            do {
                report.checks += try checkCase(index)
            } catch let all as DifferentialFailures {
                report.mismatches += all.failures
            } catch let f as ConformanceFailure {
                report.mismatches.append(f)
            } catch {
                report.mismatches.append(
                    ConformanceFailure(
                        suite: "differential", caseID: "#\(index)", store: nil, seed: seed,
                        check: kind(ofCase: index), expected: "no error", actual: "\(error)"))
            }
            report.cases += 1
            if kind(ofCase: index).hasPrefix("script") { report.scripts += 1 }
            progress?(report.cases)
            lines?.update(done: report.cases, mismatches: report.mismatches.count)
            if report.mismatches.count >= maxFailures { break }
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return report
    }
}

extension DifferentialHarness {
    /// Runs `cases` split into `jobs` shards in parallel, each shard with its own harness
    /// (its own datasets and stores); a shard stops after 10 mismatches.
    ///
    /// `progress` is called (from any thread) with the number of cases done so far; without
    /// it, a run longer than ten seconds prints a line on standard error every ten seconds
    /// (`OPENSWIFTDATA_PROGRESS=0` turns that off).
    /// ```swift
    /// let report = DifferentialHarness.run(seed: 1, cases: Array(0..<10_000), jobs: 2)
    /// ```
    public static func run(
        seed: UInt64, stores: [StoreKind] = StoreKind.allCases, cases: [Int], jobs: Int,
        shrink: Bool = true, progress: (@Sendable (Int) -> Void)? = nil
    ) -> DifferentialReport {
        run(seed: seed, cases: cases, jobs: jobs, shrink: shrink, progress: progress) {
            DifferentialHarness(seed: seed, stores: stores)
        }
    }

    /// Runs `cases` split into `jobs` shards in parallel, each on a harness `make` builds (one
    /// per shard: its own datasets and stores); a shard stops after 10 mismatches.
    package static func run(
        seed: UInt64, cases: [Int], jobs: Int, shrink: Bool, progress: (@Sendable (Int) -> Void)?,
        make: @Sendable () -> DifferentialHarness
    ) -> DifferentialReport {
        let jobs = max(1, min(jobs, cases.count / 100))
        let shards = (0..<jobs).map { j in stride(from: j, to: cases.count, by: jobs).map { cases[$0] } }
        let lock = NSLock()
        nonisolated(unsafe) var merged = DifferentialReport(seed: seed)
        nonisolated(unsafe) var done = 0
        nonisolated(unsafe) var lines =
            progress == nil ? LongRunProgress(label: "DifferentialHarness seed \(seed)", total: cases.count) : nil
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: jobs) { j in
            let harness = make()
            harness.shrinks = shrink
            let part = harness.run(cases: shards[j]) { _ in
                lock.lock()
                done += 1
                let n = done
                lines?.update(done: n)
                lock.unlock()
                progress?(n)
            }
            lock.lock()
            merged.merge(part)
            lock.unlock()
        }
        merged.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        merged.requested = cases.count
        merged.mismatches.sort { ($0.caseID, $0.check) < ($1.caseID, $1.check) }
        return merged
    }
}

/// The outcome of a differential run.
public struct DifferentialReport: Sendable, Codable {
    /// The seed of the run.
    public var seed: UInt64
    /// Cases asked for (more than ``cases`` when the run stopped early at too many mismatches).
    package var requested: Int = 0
    /// Cases run.
    public var cases: Int
    /// Individual checks made (per store and kind).
    public var checks: Int
    /// Cases that were change scripts.
    public var scripts: Int
    /// Every mismatch found, shrunk, with the seed and case that replay it.
    public var mismatches: [ConformanceFailure]
    /// Wall time of the run (reported, never gated).
    public var seconds: Double

    /// An empty report for `seed`.
    package init(seed: UInt64) {
        self.init(seed: seed, cases: 0, checks: 0, scripts: 0, mismatches: [], seconds: 0)
    }

    init(seed: UInt64, cases: Int, checks: Int, scripts: Int, mismatches: [ConformanceFailure], seconds: Double) {
        self.seed = seed
        self.cases = cases
        self.checks = checks
        self.scripts = scripts
        self.mismatches = mismatches
        self.seconds = seconds
    }

    /// Whether no case mismatched.
    public var passed: Bool { mismatches.isEmpty }

    /// Adds another part of the same run (parallel shards).
    package mutating func merge(_ other: DifferentialReport) {
        cases += other.cases
        requested += other.requested
        checks += other.checks
        scripts += other.scripts
        mismatches += other.mismatches
        seconds = max(seconds, other.seconds)
    }
}
