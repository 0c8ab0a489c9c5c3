import SwiftData

/// Every change saved after `lastToken` (all of them for `nil`), and the token to keep for next time.
func changesSaved(after lastToken: DefaultHistoryToken?, in context: ModelContext) throws
    -> (changes: [HistoryChange], newest: DefaultHistoryToken?)
{
    let transactions = try context.fetchHistory(HistoryDescriptor(after: lastToken))
    return (transactions.flatMap(\.changes), transactions.last?.token ?? lastToken)
}
