import Foundation
import OpenSwiftData

// Models for the predicate-translation suite (PRD-*): every optional is nil on some row,
// to-one and to-many relationships (inverse foreign key and join table), an inheritance tree.

enum PqStatus: String, Codable, CaseIterable {
    case draft, published, retired
}

@Model final class PqAuthor {
    var name: String
    var born: Int?
    @Relationship(inverse: \PqBook.author) var books: [PqBook] = []
    init(name: String, born: Int? = nil) {
        self.name = name
        self.born = born
    }
}

@Model final class PqLabel {
    var name: String
    var isPublic: Bool
    var books: [PqBook] = []
    init(name: String, isPublic: Bool) {
        self.name = name
        self.isPublic = isPublic
    }
}

@Model final class PqChapter {
    var title: String
    var pages: Int
    var book: PqBook?
    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

@Model final class PqBook {
    var code: UUID
    var title: String
    var subtitle: String?
    var pages: Int
    var price: Double
    var rating: Double?
    var stock: Int?
    var published: Date?
    var isFeatured: Bool
    var status: PqStatus
    var author: PqAuthor?
    @Relationship(inverse: \PqLabel.books) var labels: [PqLabel] = []
    @Relationship(inverse: \PqChapter.book) var chapters: [PqChapter] = []
    @Transient var scratch: Int = 0
    var computedTitle: String { title.uppercased() }

    init(title: String, subtitle: String? = nil, pages: Int, price: Double, rating: Double? = nil,
         stock: Int? = nil, published: Date? = nil, isFeatured: Bool = false, status: PqStatus = .draft) {
        self.code = UUID()
        self.title = title
        self.subtitle = subtitle
        self.pages = pages
        self.price = price
        self.rating = rating
        self.stock = stock
        self.published = published
        self.isFeatured = isFeatured
        self.status = status
    }
}

@Model class PqPet {
    var name: String
    var age: Int
    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }
}

@Model class PqDog: PqPet {
    var barks: Int
    init(name: String, age: Int, barks: Int) {
        self.barks = barks
        super.init(name: name, age: age)
    }
}

@Model final class PqPuppy: PqDog {
    var toy: String
    init(name: String, age: Int, barks: Int, toy: String) {
        self.toy = toy
        super.init(name: name, age: age, barks: barks)
    }
}

@Model final class PqCat: PqPet {
    var lives: Int
    init(name: String, age: Int, lives: Int) {
        self.lives = lives
        super.init(name: name, age: age)
    }
}

let predicateSuiteModels: [any PersistentModel.Type] = [
    PqAuthor.self, PqLabel.self, PqChapter.self, PqBook.self, PqPet.self, PqDog.self, PqPuppy.self, PqCat.self,
]
