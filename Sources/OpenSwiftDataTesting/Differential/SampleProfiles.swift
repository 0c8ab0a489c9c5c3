import Foundation
import OpenSwiftData

// Profiles of the sample schemas' entities: every attribute, optional, to-one chain, to-many
// collection and subclass test the predicate generator may use.

extension EntityProfile where Root == CatalogueProduct {
    /// Products: strings, prices, stock, dates, an optional summary, a category, tags.
    package static var catalogueProduct: EntityProfile {
        EntityProfile(
            "CatalogueProduct",
            sorts: [
                SortOption("name") { SortDescriptor(\.name, order: $0) },
                SortOption("name, comparator: .lexical") { SortDescriptor(\.name, comparator: .lexical, order: $0) },
                SortOption("price") { SortDescriptor(\.price, order: $0) },
                SortOption("stock") { SortDescriptor(\.stock, order: $0) },
                SortOption("addedAt") { SortDescriptor(\.addedAt, order: $0) },
                SortOption("category?.name") { SortDescriptor(\.category?.name, order: $0) },
            ],
            [
                .string("name", \.name), .comparable("name", \.name, weight: 1), .string("sku", \.sku, weight: 1),
                .comparable("price", \.price), .numeric("price", \.price), .comparable("stock", \.stock),
                .numeric("stock", \.stock),
                .comparable("addedAt", \.addedAt, weight: 2), .optional("summary", \.summary),
                .optionalStringChain("summary", \.summary),
                .toOne("category", \.category, "name", \.name), .toMany("tags", \.tags, { .catalogueTag }), .identity(),
            ])
    }
}

extension EntityProfile where Root == CatalogueCategory {
    /// Categories and their products.
    package static var catalogueCategory: EntityProfile {
        EntityProfile(
            "CatalogueCategory", sorts: [SortOption("name") { SortDescriptor(\.name, order: $0) }],
            [
                .string("name", \.name), .toMany("products", \.products, { .catalogueProduct }, weight: 4),
            ])
    }
}

extension EntityProfile where Root == CatalogueTag {
    /// Tags and the products carrying them (many-to-many; `products` is an optional to-many,
    /// CloudKit style).
    package static var catalogueTag: EntityProfile {
        EntityProfile(
            "CatalogueTag", sorts: [SortOption("label") { SortDescriptor(\.label, order: $0) }],
            [
                .string("label", \.label), .comparable("label", \.label, weight: 1),
                .optionalToMany("products", \.products, { .catalogueProduct }, weight: 3),
            ])
    }
}

extension EntityProfile where Root == TravelTrip {
    /// Trips of three classes: inherited attributes, type checks and casts.
    package static var travelTrip: EntityProfile {
        EntityProfile(
            "TravelTrip",
            sorts: [
                SortOption("name") { SortDescriptor(\.name, order: $0) },
                SortOption("destination") { SortDescriptor(\.destination, order: $0) },
                SortOption("startDate") { SortDescriptor(\.startDate, order: $0) },
                // Three classes in one table: the store ranks Z_ENT by entity name, then Z_PK.
                SortOption("persistentModelID") { SortDescriptor(\.persistentModelID, order: $0) },
            ],
            [
                .string("name", \.name), .string("destination", \.destination), .comparable("startDate", \.startDate),
                .comparable("endDate", \.endDate, weight: 1),
                .toMany("accommodations", \.accommodations, { .travelAccommodation }),
                .isType("TravelBusinessTrip", TravelBusinessTrip.self),
                .isType("TravelPersonalTrip", TravelPersonalTrip.self),
                .castAttribute("TravelBusinessTrip", TravelBusinessTrip.self, "perdiem", \.perdiem, weight: 2),
                .castEquality(
                    "TravelPersonalTrip", TravelPersonalTrip.self, "reason", \.reason, values: TravelReason.allCases),
                .identity(),
            ])
    }
}

extension EntityProfile where Root == TravelAccommodation {
    /// Accommodations and the trip they belong to.
    package static var travelAccommodation: EntityProfile {
        EntityProfile(
            "TravelAccommodation",
            sorts: [
                SortOption("name") { SortDescriptor(\.name, order: $0) },
                SortOption("nights") { SortDescriptor(\.nights, order: $0) },
                SortOption("trip?.name") { SortDescriptor(\.trip?.name, order: $0) },
            ],
            [
                .string("name", \.name), .string("address", \.address), .comparable("nights", \.nights),
                .numeric("nights", \.nights),
                .toOne("trip", \.trip, "destination", \.destination),
                .toOne("trip", \.trip, "startDate", \.startDate, weight: 1),
            ])
    }
}

extension EntityProfile where Root == TravelMeal {
    /// Meals of business trips, with `Decimal` amounts and optional tips.
    package static var travelMeal: EntityProfile {
        EntityProfile(
            "TravelMeal",
            sorts: [
                SortOption("cost") { SortDescriptor(\.cost, order: $0) },
                SortOption("eatenAt") { SortDescriptor(\.eatenAt, order: $0) },
                SortOption("venue") { SortDescriptor(\.venue, order: $0) },
                SortOption("amount") { SortDescriptor(\.amount, order: $0) },
                SortOption("tip") { SortDescriptor(\.tip, order: $0) },
            ],
            [
                .string("venue", \.venue), .comparable("cost", \.cost), .numeric("cost", \.cost),
                .comparable("eatenAt", \.eatenAt),
                .comparable("amount", \.amount), .optional("tip", \.tip),
                .toOne("trip", \.trip, "perdiem", \.perdiem), .toOne("trip", \.trip, "name", \.name),
            ])
    }
}

extension EntityProfile where Root == AccountUser {
    /// Users: names in several scripts, e-mails, scores, an optional bio.
    package static var accountUser: EntityProfile {
        EntityProfile(
            "AccountUser",
            sorts: [
                SortOption("username") { SortDescriptor(\.username, order: $0) },
                SortOption("name") { SortDescriptor(\.name, order: $0) },
                SortOption("name, comparator: .lexical") { SortDescriptor(\.name, comparator: .lexical, order: $0) },
                SortOption("score") { SortDescriptor(\.score, order: $0) },
                SortOption("joined") { SortDescriptor(\.joined, order: $0) },
                SortOption("bio") { SortDescriptor(\.bio, order: $0) },
                SortOption("bio, comparator: .lexical") { SortDescriptor(\.bio, comparator: .lexical, order: $0) },
            ],
            [
                .string("username", \.username), .string("name", \.name), .comparable("name", \.name, weight: 1),
                .string("email", \.email), .comparable("score", \.score), .numeric("score", \.score),
                .comparable("joined", \.joined), .optional("bio", \.bio), .optionalStringChain("bio", \.bio),
                .equatable("id", \.id, other: UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))),
            ])
    }
}

extension EntityProfile where Root == DictionaryWord {
    /// Words and their unique-named category.
    package static var dictionaryWord: EntityProfile {
        EntityProfile(
            "DictionaryWord",
            sorts: [
                SortOption("text") { SortDescriptor(\.text, order: $0) },
                SortOption("length") { SortDescriptor(\.length, order: $0) },
            ],
            [
                .string("text", \.text), .comparable("text", \.text, weight: 1), .comparable("length", \.length),
                .numeric("length", \.length), .toOne("category", \.category, "name", \.name),
            ])
    }
}

extension EntityProfile where Root == DictionaryCategory {
    /// Dictionary categories and their words.
    package static var dictionaryCategory: EntityProfile {
        EntityProfile(
            "DictionaryCategory",
            sorts: [
                SortOption("name") { SortDescriptor(\.name, order: $0) },
                SortOption("name, comparator: .lexical") { SortDescriptor(\.name, comparator: .lexical, order: $0) },
            ],
            [
                .string("name", \.name), .toMany("words", \.words, { .dictionaryWord }, weight: 4),
            ])
    }
}
