import Foundation
import OpenSwiftData

/// Conformance cases generated from what a schema declares — every unique constraint, every
/// relationship's delete rule, every inheritance hierarchy, every attribute's extreme values —
/// so a model change that changes persistence behaviour shows up as a named failing case.
///
/// Run the cases from Swift Testing, one test case per rule and store:
/// ```swift
/// @Test(arguments: SchemaConformance(schema: teamSchema).cases, StoreKind.allCases)
/// func declaredRules(_ c: ConformanceCase, store: StoreKind) throws { try c.verify(store: store) }
/// ```
/// or from XCTest, all at once:
/// ```swift
/// func testDeclaredRules() throws { try SchemaConformance(schema: teamSchema).verify(store: .disk) }
/// ```
///
/// | case ID | what it checks |
/// |---|---|
/// | `SCH-UNQ Entity[a, b] …` | inserting a model with the same values updates the stored row (inserted values win, one row); two colliding inserts in one save leave one row, the last's values; a group holding nil never collides |
/// | `SCH-DEL Entity.rel rule` | deleting the owner: `.cascade` deletes the related models (and what they cascade to), `.nullify` keeps them and clears the inverse, `.deny` makes the save throw and write nothing, `.noAction` keeps them; each case first checks that the saved owner holds its related models (and they hold it through the inverse), so it cannot pass without linking what it tests |
/// | `SCH-INH Root` | every class of the hierarchy (subclasses in name order, whatever the schema array's order) fetches and counts its own instances and its subclasses' (deep), and each fetched model has the class it was inserted as |
/// | `SCH-VAL Entity` | extreme values of every attribute (empty and 5,000-character strings, combining marks, emoji, quotes, `Int.min`/`max`, ±greatest finite, least non-zero and infinite doubles, distant dates, every enum case, nil) survive a save and a fresh read (on disk, through a reopened file) |
/// | `SCH-DECL` | with `expecting:`, the declared rules are exactly the listed ones (see ``declarations``) |
///
/// Instances are made as automatic data makes them (``Fixture/init(schema:seed:counts:defaultCount:traits:options:)``):
/// through `init(backingData:)`, with required to-one relationships and minimum to-many counts
/// filled with new related models.
public struct SchemaConformance: Sendable {
    /// The schema the cases were derived from.
    public let schema: Schema
    /// The generated cases, in the order of the table above.
    public let cases: [ConformanceCase]

    /// The rules the schema declares, one line each, sorted: `unique Customer[email]`,
    /// `delete Customer.orders cascade`, `hierarchy Payment: CardPayment, CashPayment`.
    ///
    /// Pass them (as you expect them) to `expecting:` to turn a changed declaration into a
    /// failing case:
    /// ```swift
    /// print(SchemaConformance(schema: schema).declarations.joined(separator: "\n"))
    /// ```
    public let declarations: [String]

    /// The cases for `schema`; with `expecting`, also a case that fails when the declared rules
    /// differ from these lines (a delete rule or a unique constraint changed in a model).
    ///
    /// ```swift
    /// SchemaConformance(schema: schema, expecting: ["delete Customer.orders cascade", "unique Customer[email]"])
    /// ```
    public init(schema: Schema, expecting expected: [String]? = nil) {
        self.schema = schema
        let plan = SchemaRules(schema: schema)
        declarations = plan.declarations
        var cases = plan.uniqueCases() + plan.deleteRuleCases() + plan.inheritanceCases() + plan.roundTripCases()
        if let expected {
            let actual = plan.declarations
            cases.insert(
                ConformanceCase(suite: "schema", id: "SCH-DECL", title: "the declared rules are the expected ones") {
                    check in
                    let missing = expected.filter { !actual.contains($0) }
                    let added = actual.filter { !expected.contains($0) }
                    try check.expect(
                        missing.isEmpty && added.isEmpty, "declared rules",
                        expected: missing.isEmpty ? "no change" : "declared: " + missing.joined(separator: "; "),
                        actual: added.isEmpty ? "not declared" : "declared instead: " + added.joined(separator: "; "))
                }, at: 0)
        }
        self.cases = cases
    }

    /// Runs every case on `store` and throws the first failure (for XCTest and scripts).
    ///
    /// ```swift
    /// try SchemaConformance(schema: schema).verify(store: .memory)
    /// ```
    public func verify(store: StoreKind, seed: UInt64 = 1) throws {
        for c in cases { try c.verify(store: store, seed: seed) }
    }

    /// The cases as a ``ConformanceSuite`` named `schema`, for reports and `run(on:)`.
    ///
    /// ```swift
    /// let results = SchemaConformance(schema: schema).suite.run(on: .disk)
    /// ```
    public var suite: ConformanceSuite {
        ConformanceSuite(name: "schema", title: "rules declared by the schema", cases: cases)
    }
}
