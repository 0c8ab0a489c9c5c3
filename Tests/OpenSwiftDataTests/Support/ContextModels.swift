import Foundation
import OpenSwiftData

// Models for the Context, Fetch, Identifier and Container suites. Names carry a `Ctx` prefix so
// they never collide with models other suites add.

/// One attribute of each scalar kind a predicate or a sort touches, plus optionals, a transient
/// and a computed property (which cannot be queried).
@Model final class CtxItem {
    var name: String
    var n: Int
    var score: Double
    var flag: Bool
    var when: Date
    var note: String?
    var rank: Int?
    var due: Date?
    var ratio: Double?
    var done: Bool?
    @Transient var scratch: Int = 0
    var doubled: Int { n * 2 }

    init(
        name: String, n: Int = 0, score: Double = 0, flag: Bool = false,
        when: Date = Date(timeIntervalSinceReferenceDate: 0),
        note: String? = nil, rank: Int? = nil, due: Date? = nil, ratio: Double? = nil, done: Bool? = nil
    ) {
        self.name = name
        self.n = n
        self.score = score
        self.flag = flag
        self.when = when
        self.note = note
        self.rank = rank
        self.due = due
        self.ratio = ratio
        self.done = done
    }
}

/// A person for two-key sorts.
@Model final class CtxPerson {
    var first: String
    var last: String
    var age: Int
    init(first: String, last: String, age: Int) {
        self.first = first
        self.last = last
        self.age = age
    }
}

/// Every model the context suites use, with the models they reach.
var contextSuiteModels: [any PersistentModel.Type] { [CtxItem.self, CtxPerson.self, Category.self, Word.self] }

/// Deterministic dates: `day(n)` is `n` days after the reference date.
func day(_ n: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(n) * 86_400) }
