// CloudKit-synced SwiftData model code as shipping apps write it (every attribute defaulted,
// every relationship optional, to-many ones as `[T]?`), pasted unchanged: it must compile and run.
import SwiftData
import Testing

@Model
final class Recipe {
    var name: String = ""
    var minutes: Int = 0
    @Relationship(deleteRule: .cascade, inverse: \Step.recipe) var steps: [Step]? = []
    @Relationship(inverse: \Ingredient.recipes) var ingredients: [Ingredient]? = []

    init(name: String, minutes: Int) {
        self.name = name
        self.minutes = minutes
    }

    var sortedSteps: [Step] { (steps ?? []).sorted { $0.order < $1.order } }
}

@Model
final class Step {
    var order: Int = 0
    var text: String = ""
    var recipe: Recipe?

    init(order: Int, text: String) {
        self.order = order
        self.text = text
    }
}

@Model
final class Ingredient {
    var name: String = ""
    var recipes: [Recipe]?

    init(name: String) { self.name = name }
}

@Suite("Compatibility: CloudKit-style models")
struct CloudKitModelTests {
    @Test(
        "optional to-many relationships compile unchanged and behave as on Apple platforms", arguments: [true, false])
    func optionalToMany(inMemory: Bool) throws {
        let url = URL.temporaryDirectory.appending(path: "cloudkit-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let config =
            inMemory
            ? ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: .private("iCloud.com.example.recipes"))
            : ModelConfiguration(url: url, cloudKitDatabase: .automatic)
        let container = try ModelContainer(for: Recipe.self, configurations: config)
        let context = ModelContext(container)
        let eggs = Ingredient(name: "eggs")
        let flour = Ingredient(name: "flour")
        let omelette = Recipe(name: "Omelette", minutes: 10)
        let cake = Recipe(name: "Cake", minutes: 60)
        context.insert(omelette)
        context.insert(cake)
        omelette.ingredients = [eggs]
        cake.ingredients?.append(contentsOf: [eggs, flour])
        cake.steps = [Step(order: 2, text: "bake"), Step(order: 1, text: "mix")]
        try context.save()

        let reader = ModelContext(container)
        let name = "flour"
        let withFlour = try reader.fetch(
            FetchDescriptor<Recipe>(
                predicate: #Predicate {
                    $0.ingredients?.contains { $0.name == name } == true
                }))
        #expect(withFlour.map(\.name) == ["Cake"])
        #expect(withFlour.first?.sortedSteps.map(\.text) == ["mix", "bake"])
        let stepless = try reader.fetchCount(
            FetchDescriptor<Recipe>(predicate: #Predicate { $0.steps?.isEmpty ?? true }))
        #expect(stepless == 1)
        let eggsAgain = try #require(
            try reader.fetch(FetchDescriptor<Ingredient>(predicate: #Predicate { $0.name == "eggs" })).first)
        #expect(Set(eggsAgain.recipes?.map(\.name) ?? []) == ["Omelette", "Cake"])

        reader.delete(try #require(withFlour.first))
        try reader.save()
        #expect(try reader.fetchCount(FetchDescriptor<Step>()) == 0, "steps cascade with their recipe")
        #expect(eggsAgain.recipes?.map(\.name) == ["Omelette"], "and leave their ingredients' lists")
    }
}
