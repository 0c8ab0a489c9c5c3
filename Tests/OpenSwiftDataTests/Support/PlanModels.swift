import Foundation
import OpenSwiftData

/// A model with declared indexes of every shape the plan tests need: single columns of each
/// comparison kind, a composite (equality then range), an optional column and a unique one.
@Model final class PlanItem {
    #Index<PlanItem>([\.code], [\.name], [\.price], [\.category, \.code], [\.rating])
    @Attribute(.unique) var email: String
    var code: Int
    var name: String
    var price: Double
    var category: String
    var rating: Int?
    var note: String

    init(email: String, code: Int, name: String, price: Double, category: String, rating: Int?, note: String) {
        self.email = email
        self.code = code
        self.name = name
        self.price = price
        self.category = category
        self.rating = rating
        self.note = note
    }

    /// Row `i` of a deterministic data set: codes 0..<n, names with shared prefixes in mixed
    /// case, every fifth rating nil.
    static func row(_ i: Int) -> PlanItem {
        let stems = ["Alpha", "alpha", "Alpine", "Beta", "béta", "Gamma", "Al", "ALP"]
        return PlanItem(
            email: "user\(i)@example.com", code: i, name: "\(stems[i % stems.count])-\(i)",
            price: Double(i % 97) * 1.5, category: ["a", "b", "c", "d"][i % 4],
            rating: i % 5 == 0 ? nil : i % 11, note: "n\(i % 13)")
    }
}

/// A container of `kind` holding `rows` ``PlanItem``s, analysed so the planner sees the data.
func makePlanContainer(_ kind: StoreKind, rows: Int, in dir: ScratchDirectory) throws -> ModelContainer {
    let container = try kind.makeContainer(for: [PlanItem.self], in: dir)
    let context = ModelContext(container)
    for i in 0..<rows { context.insert(PlanItem.row(i)) }
    try context.save()
    return container
}
