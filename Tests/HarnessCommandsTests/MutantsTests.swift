import ArgumentParsing
import Foundation
import HarnessSupport
import OpenSwiftData
import OpenSwiftDataTesting
import Testing

@testable import HarnessCommands

/// `harness conform --mutants`: the catalogue of semantic mutants, its options, and a few
/// mutants run in child processes of the `harness` executable built beside this test bundle
/// (the whole catalogue is `make mutants`).
@Suite("Mutants", .serialized)
struct MutantsTests {
    /// `harness` beside the test bundle (`.build/<triple>/debug/harness`), or named by
    /// `$OPENSWIFTDATA_HARNESS`; searched from the test executable's directory upward.
    static func harness() -> URL? { HarnessExecutable.locate() }

    @Test("the catalogue: at least 40 mutants, distinct names, each naming a behaviour ID of the reference")
    func catalogue() throws {
        let mutants = InjectedFault.mutants
        #expect(mutants.count >= 40)
        #expect(Set(mutants).count == mutants.count)
        let reference = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../Docs/BehaviourReference.md"), encoding: .utf8)
        for mutant in mutants {
            let summary = try #require(mutant.summary, "\(mutant.rawValue) has no summary")
            let id = String(summary.prefix { $0 != " " })
            #expect(
                reference.contains("**\(id)**"), "\(mutant.rawValue) names \(id), which the reference does not define")
        }
        #expect(InjectedFault.splitSave.summary == nil, "the reliability faults are no mutants")
    }

    @Test("--mutants takes --mutant names, --differential and --jobs; refuses an unknown mutant and a slice")
    func options() throws {
        let o = try ConformCommand.options(
            Harness.parser.parse([
                "conform", "--mutants", "--mutant", "cascade-nullifies,deny-ignored", "--differential", "20", "--jobs",
                "3",
            ]))
        #expect(o.runMutants && o.mutants == [.cascadeNullifies, .denyIgnored])
        #expect(o.mutantCases == 20 && o.mutantJobs == 3)
        let all = try ConformCommand.options(Harness.parser.parse(["conform", "--mutants"]))
        #expect(all.mutants == InjectedFault.mutants && all.mutantCases == ConformCommand.defaultMutantCases)
        for refused in [
            ["--mutants", "--mutant", "no-such-mutant"], ["--mutant", "deny-ignored"], ["--mutants", "--shard", "1/2"],
            ["--mutants", "--suite", "history"],
        ] {
            #expect(throws: ArgumentError.self, "\(refused)") {
                try ConformCommand.options(Harness.parser.parse(["conform"] + refused))
            }
        }
        let plan = MutantWorker.Plan(seed: 7, differential: 5, stores: [.disk], suites: ["fetching", "schema"])
        #expect(MutantWorker.Plan(arguments: plan.arguments) == plan)
    }

    @Test("a few mutants in child processes: each killed by its suite; the run without a mutant passes")
    func fewMutants() throws {
        let harness = try #require(
            Self.harness(),
            "the harness executable was not found beside the test bundle; build it with `swift build` or set OPENSWIFTDATA_HARNESS"
        )
        let run = MutationRun(
            executable: harness, mutants: [.cascadeNullifies, .containsIgnoresCase, .offsetOffByOne],
            plan: MutantWorker.Plan(
                differential: 0, stores: [.memory], suites: ["deleteRules", "predicates", "fetching"]),
            jobs: 2)
        let (baseline, score) = run.run()
        #expect(
            !baseline.killed, "the run without a mutant failed at \(baseline.check ?? "?"): \(baseline.detail ?? "")")
        #expect(score.line == "mutants: 3 of 3 killed", "\(score.table())")
        let killers = score.mutants.map { $0.check ?? "" }
        #expect(killers[0].hasPrefix("deleteRules "), "\(killers)")
        #expect(killers[1].hasPrefix("predicates "), "\(killers)")
        #expect(killers[2].hasPrefix("fetching "), "\(killers)")
        let markdown = score.markdown()
        #expect(markdown.contains("**mutants: 3 of 3 killed**") && markdown.contains("`cascade-nullifies`"))
        #expect(try MutationScore(json: score.json()) == score)
    }

    @Test("DEL-02 DEL-08 DEL-01: SchemaConformance on [T]? passes as is and fails for the delete-rule mutants")
    func optionalToManyMutants() throws {
        let harness = try #require(Self.harness(), "the harness executable was not found beside the test bundle")
        let run = MutationRun(
            executable: harness, mutants: [.cascadeNullifies, .denyIgnored, .nullifyKeepsInverse],
            plan: MutantWorker.Plan(differential: 0, stores: [.memory, .disk], suites: ["schema"]), jobs: 2)
        let (baseline, score) = run.run()
        #expect(!baseline.killed, "\(baseline.check ?? "?"): \(baseline.detail ?? "")")
        #expect(score.line == "mutants: 3 of 3 killed", "\(score.table())")
        for mutant in score.mutants {
            #expect(mutant.check?.hasPrefix("schema optional-to-many SCH-DEL") == true, "\(mutant)")
        }
    }

    @Test("a conformance report states the last mutation score found beside it")
    func scoreInConformanceReport() throws {
        let scratch = try ScratchDirectory(prefix: "mutation-score")
        let score = MutationScore(
            seed: 1, differentialCases: 4, baselineChecks: 10,
            mutants: [
                .init(name: "a", summary: "X-01 a", killed: true, check: "c", detail: nil, checks: 2, seconds: 0),
                .init(name: "b", summary: "X-02 b", killed: false, check: nil, detail: nil, checks: 10, seconds: 0),
            ], seconds: 1, date: "2026-01-01T00:00:00Z")
        try score.json().write(to: scratch.file("mutants.json"))
        var report = ConformanceReport(seed: 1, stores: [.memory])
        report.mutationScore = MutationScore.latest(in: [scratch.url])
        #expect(report.markdown().contains("**mutants: 1 of 2 killed** (50.0 %); survivors: b."))
        #expect(try ConformanceReport(json: report.json()).mutationScore == score)
    }
}
