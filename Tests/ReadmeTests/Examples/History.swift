import SwiftData

/// What the widget saved since `token`: the changes of its transactions after that token, and
/// the newest token, to keep for next time (`DefaultHistoryToken` is `Codable`).
func widgetChanges(since token: DefaultHistoryToken?, in context: ModelContext) throws
    -> (changes: [HistoryChange], newest: DefaultHistoryToken?)
{
    var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    if let token {
        descriptor.predicate = #Predicate { $0.token > token && $0.author == "widget" }
    } else {
        descriptor.predicate = #Predicate { $0.author == "widget" }
    }
    let transactions = try context.fetchHistory(descriptor)
    return (transactions.flatMap(\.changes), transactions.last?.token)
}
