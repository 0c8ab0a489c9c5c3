import Foundation
import OpenSwiftData

/// A product category of the catalogue sample schema; deleting it deletes its products.
///
/// ```swift
/// let books = CatalogueCategory(name: "Books")
/// ```
@Model package final class CatalogueCategory {
    /// The category's display name.
    package var name: String
    /// The products in the category.
    @Relationship(deleteRule: .cascade, inverse: \CatalogueProduct.category) package var products: [CatalogueProduct] =
        []
    /// A category.
    package init(name: String) { self.name = name }
}

/// A product of the catalogue sample schema, indexed on `name` and on `(price, name)`.
///
/// ```swift
/// let lamp = CatalogueProduct(name: "Lamp", sku: "SKU-1", price: 19.99, stock: 4, addedAt: FixtureEpoch.reference)
/// ```
@Model package final class CatalogueProduct {
    #Index<CatalogueProduct>([\.name], [\.price, \.name])
    /// The product's name.
    package var name: String
    /// The stock-keeping unit, unique by construction (not declared unique).
    package var sku: String
    /// The price with whole cents.
    package var price: Double
    /// Units in stock.
    package var stock: Int
    /// A short description, or `nil`.
    package var summary: String?
    /// When the product was listed.
    package var addedAt: Date
    /// The product's category.
    package var category: CatalogueCategory?
    /// Its tags (many-to-many).
    @Relationship(inverse: \CatalogueTag.products) package var tags: [CatalogueTag] = []
    /// A product.
    package init(name: String, sku: String, price: Double, stock: Int, summary: String? = nil, addedAt: Date) {
        self.name = name
        self.sku = sku
        self.price = price
        self.stock = stock
        self.summary = summary
        self.addedAt = addedAt
    }
}

/// A tag of the catalogue sample schema, shared by many products.
///
/// ```swift
/// let sale = CatalogueTag(label: "sale")
/// ```
@Model package final class CatalogueTag {
    /// The tag's text.
    package var label: String
    /// The products carrying the tag: an optional to-many, as CloudKit sync requires (it reads
    /// `[]`, never `nil`, as in SwiftData).
    package var products: [CatalogueProduct]? = []
    /// A tag.
    package init(label: String) { self.label = label }
}

extension SampleSchema {
    /// Categories, products (indexed, Zipf-spread over categories) and tags (many-to-many).
    ///
    /// Scale N: N products, max(1, N/50) categories, clamp(N/20, 1…60) tags, 0–4 tags a product.
    /// ```swift
    /// let fixture = SampleSchema.catalogue.fixture(seed: 1, scale: 1_000)
    /// ```
    package static var catalogue: SampleSchema {
        SampleSchema(
            name: "catalogue",
            summary: "categories, products with #Index, tags many-to-many",
            modelTypes: [CatalogueCategory.self, CatalogueProduct.self, CatalogueTag.self]
        ) { seed, scale, traits in
            Fixture(seed: seed, traits: traits) {
                Generate(CatalogueCategory.self, count: max(1, scale / 50)) { row in
                    CatalogueCategory(name: row.words("name", count: .uniform(1...2)))
                }
                Generate(CatalogueTag.self, count: min(60, max(1, scale / 20))) { row in
                    CatalogueTag(label: row.word("label"))
                }
                Generate(
                    CatalogueProduct.self, count: scale, parent: \.category, children: \.products, fanOut: .zipf(0.8)
                ) { row in
                    CatalogueProduct(
                        name: row.words("name", count: .uniform(1...3)),
                        sku: "SKU-\(String(row.index + 100_000))",
                        price: row.price("price", cents: 99...99_999),
                        stock: row.int("stock", .normal(mean: 40, standardDeviation: 15, in: 0...200)),
                        summary: row.nullable("summary", ratio: 0.3) { row.sentence("summary") },
                        addedAt: row.date("addedAt", seconds: 0...(730 * 86_400)))
                }
                .linking(\.tags, count: .uniform(0...4))
            }
        }
    }
}
