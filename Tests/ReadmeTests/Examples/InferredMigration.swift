import Foundation
import SwiftData

/// A recipe as the app's next release declares it. The store the previous release wrote (a
/// `Recipe` with `name: String` and `minutes: Int`) opens without a migration plan.
@Model final class Recipe {
    @Attribute(originalName: "name") var title: String  // renamed, values kept
    var minutes: Int?  // was non-optional: values kept
    var servings: Int = 2  // added with a default: existing recipes serve 2
    var source: URL?  // added, optional: nil in existing recipes
    init(title: String) { self.title = title }
}

/// Opens the recipes store at `url`; a store of the previous release is migrated by inference.
func openRecipes(at url: URL) throws -> ModelContainer {
    try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: url))
}
