import Foundation
import OpenSwiftData

// `@Model` classes equivalent to the apps that wrote three of the reference stores
// (`Tests/Vectors/store-format`), reconstructed from the models the stores recorded. Entity
// names must equal the recorded ones, so each app's classes live in their own namespace.

/// The `swiftdata-resources` app: a unique name, inferred inverses (one of them one-to-one),
/// a to-one without inverse, a UUID with a default.
enum ResourcesVectorModels {
    @Model final class Item {
        @Attribute(.unique) var name: String
        var craftingRecipe: CraftingRecipe?
        init(name: String) { self.name = name }
    }

    @Model final class CraftingRecipe {
        var producedItem: Item?
        var producedItemCount: String = "1"
        var requiredComponents: [Component] = []
        init() {}
    }

    @Model final class Component {
        var id: UUID = UUID()
        var count: Int = 1
        var item: Item?
        var craftingRecipe: CraftingRecipe?
        init() {}
    }

    static let schema = Schema([Item.self, CraftingRecipe.self, Component.self])
}

/// The `swiftdata-cart` app: Decimal, Date, Data, optionals, to-many without inverse, unique ids.
enum CartVectorModels {
    @Model final class CartModel {
        @Attribute(.unique) var id: String
        var context: String?
        var createdAt: Date
        var displayName: String?
        @Relationship(deleteRule: .cascade) var items: [CartItemModel] = []
        var maxItemCount: Int?
        var metadataJSON: Data?
        var minSubtotalAmount: Decimal?
        var minSubtotalCurrencyCode: String?
        var profileId: String?
        var status: String
        var storeId: String
        var storeImageURLString: String?
        var updatedAt: Date
        init(id: String, status: String, storeId: String, at date: Date) {
            self.id = id
            self.status = status
            self.storeId = storeId
            self.createdAt = date
            self.updatedAt = date
        }
    }

    @Model final class CartItemModel {
        @Attribute(.unique) var id: String
        var availableStock: Int?
        var imageURLString: String?
        @Relationship(deleteRule: .cascade) var modifiers: [CartItemModifierModel] = []
        var productId: String
        var quantity: Int
        var totalPriceAmount: Decimal
        var totalPriceCurrencyCode: String
        var unitPriceAmount: Decimal
        var unitPriceCurrencyCode: String
        init(id: String, productId: String, quantity: Int, price: Decimal, currency: String) {
            self.id = id
            self.productId = productId
            self.quantity = quantity
            self.totalPriceAmount = price * Decimal(quantity)
            self.totalPriceCurrencyCode = currency
            self.unitPriceAmount = price
            self.unitPriceCurrencyCode = currency
        }
    }

    @Model final class CartItemModifierModel {
        @Attribute(.unique) var id: String
        var name: String
        var priceDeltaAmount: Decimal
        var priceDeltaCurrencyCode: String
        init(id: String, name: String, delta: Decimal, currency: String) {
            self.id = id
            self.name = name
            self.priceDeltaAmount = delta
            self.priceDeltaCurrencyCode = currency
        }
    }

    static let schema = Schema([CartModel.self, CartItemModel.self, CartItemModifierModel.self])
}

/// Two entities of the `swiftdata-cocktails` app: Codable structs and a raw-value enum as
/// composite attributes, a non-optional to-one without inverse. (Its `Cocktail` has an enum
/// with associated values and `Garnish` an optional to-many, which our schema cannot express.)
enum CocktailsVectorModels {
    /// A composite with a UUID, a string and an array (binary data) element.
    struct Prep: Codable, Equatable {
        var id: UUID?
        var prepIngredientName: String?
        var prepRecipe: [String]?
    }

    /// A composite of five arrays.
    struct Tags: Codable, Equatable {
        var flavors: [String] = []
        var profiles: [String] = []
        var styles: [String] = []
        var booze: [String] = []
        var nA: [String] = []
    }

    /// A raw-value enum: a composite of one element named after the property.
    enum MeasurementUnit: String, Codable, CaseIterable {
        case ounce, dash, splash
    }

    @Model final class IngredientBase {
        var baseCategory: String
        var id: UUID
        var info: String?
        var isCustom: Bool = false
        @Attribute(.unique) var name: String
        var prep: Prep?
        var specialtyCategory: String
        var tags: Tags?
        var umbrellaCategory: String
        init(name: String) {
            self.name = name
            self.id = UUID()
            self.baseCategory = ""
            self.specialtyCategory = ""
            self.umbrellaCategory = ""
        }
    }

    @Model final class Ingredient {
        var id: UUID
        var ingredientBase: IngredientBase
        var unit: MeasurementUnit
        var value: Double
        init(base: IngredientBase, unit: MeasurementUnit, value: Double) {
            self.id = UUID()
            self.ingredientBase = base
            self.unit = unit
            self.value = value
        }
    }

    static let schema = Schema([Ingredient.self, IngredientBase.self])
}

/// `#Index`, `#Unique`, a hash modifier, external storage and preserved values, for the
/// schema-mapping checks that no vector covers.
@Model final class StfIndexed {
    #Unique<StfIndexed>([\.code, \.day])
    #Index<StfIndexed>([\.code], [\.day, \.code])
    var code: String
    var day: Int
    @Attribute(.externalStorage) var photo: Data?
    @Attribute(.preserveValueOnDeletion, hashModifier: "v2") var note: String = ""
    @Attribute(.ephemeral) var scratch: Int = 0
    var tags: [String] = []
    init(code: String, day: Int) {
        self.code = code
        self.day = day
    }
}

/// The `coredata-self-many-to-many` app's model as `@Model` classes: a self-referencing
/// many-to-many (`blocking` / `blockedBy`) and CloudKit-style optionals everywhere.
enum SelfManyVectorModels {
    @Model final class Project {
        var name: String?
        var priority: Int16?
        @Relationship(inverse: \TodoItem.project) var todoItem: [TodoItem]?
        init(name: String) { self.name = name }
    }

    @Model final class TodoItem {
        @Relationship(inverse: \TodoItem.blocking) var blockedBy: [TodoItem]?
        var blocking: [TodoItem]?
        var date: Date?
        var done: Bool?
        var name: String?
        var notes: String?
        var project: Project?
        var repeats: Int16?
        init(name: String) { self.name = name }
    }

    static let schema = Schema([Project.self, TodoItem.self])
}
