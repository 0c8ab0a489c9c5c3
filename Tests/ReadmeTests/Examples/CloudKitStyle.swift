import SwiftData

// CloudKit sync requires every relationship to be optional, so to-many ones are `[T]?`.
@Model final class Playlist {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Song.playlist) var songs: [Song]? = []
    init(name: String) { self.name = name }
}

@Model final class Song {
    var title: String = ""
    var plays: Int = 0
    var playlist: Playlist?
    init(title: String, plays: Int) {
        self.title = title
        self.plays = plays
    }
}

/// The playlists holding a song played more than `plays` times, and how many hold over two songs.
func playlistStats(_ context: ModelContext, plays: Int) throws -> (popular: [String], long: Int) {
    let popular = #Predicate<Playlist> { $0.songs?.contains { $0.plays > plays } == true }
    let long = #Predicate<Playlist> { ($0.songs?.count ?? 0) > 2 }
    let names = try context.fetch(FetchDescriptor(predicate: popular, sortBy: [SortDescriptor(\.name)])).map(\.name)
    return (names, try context.fetchCount(FetchDescriptor(predicate: long)))
}
