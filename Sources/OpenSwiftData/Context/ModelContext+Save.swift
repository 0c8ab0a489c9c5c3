import Foundation

extension ModelContext {
    /// Writes every pending insert, change and delete in one SQLite transaction
    /// (`BEGIN IMMEDIATE … COMMIT`). On any error the transaction is rolled back, the store is
    /// unchanged, the pending changes stay in the context and a retry can succeed.
    ///
    /// ```sql
    /// INSERT INTO "Trip" ("Z_PK", "Z_ENT", "name", …) VALUES (?, ?, ?, …)   -- one statement per entity
    /// UPDATE "Trip" SET "name" = ? WHERE "Z_PK" = ?                         -- changed columns only
    /// DELETE FROM "Trip" WHERE "Z_PK" = ?
    /// ```
    /// - Throws: ``SwiftDataError`` — `.saveNotAllowed`, `.deleteRuleDenied`, `.invalidValue`
    ///   (NaN …), `.uniqueConstraintViolation`, `.unknownSchema`, `.storeError`.
    public func save() throws {
        if let e = deferredErrors.first { throw e }
        guard hasChanges else { return }
        guard container.allowsSave else {
            throw SwiftDataError(SwiftDataError.saveNotAllowed.code,
                                 "the container's configuration was created with allowsSave: false")
        }
        for m in inserted { m._$absorbPendingValues() }
        try propagateDeletes()
        // New models reached through relationships of inserted or changed models are inserted too.
        for m in inserted + changedOrder.compactMap({ changed[$0] }) { insertRelated(of: m, m.persistentBackingData) }
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)

        do {
            try store.withConnection { db in
                try db.immediateTransactionMapped { try self.write(db) }
            }
        } catch {
            for m in inserted { m.persistentBackingData.pendingPK = 0 }
            throw error
        }

        // Committed: apply the new identities and clear pending state.
        var insertedIDs: [PersistentIdentifier] = []
        var updatedIDs: [PersistentIdentifier] = []
        var deletedIDs: [PersistentIdentifier] = []
        for m in inserted {
            let d = m.persistentBackingData
            d.pk = d.pendingPK
            d.pendingPK = 0
            d.status = .persisted
            d.storeIdentifier = store.identifier
            d.committed = nil
            d.changed = []
            registered[rowKey(d)] = m
            insertedIDs.append(m.persistentModelID)
        }
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            d.committed = nil
            d.changed = []
            updatedIDs.append(m.persistentModelID)
        }
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            deletedIDs.append(m.persistentModelID)
            registered[rowKey(d)] = nil
            d.status = .removed
            d.context = nil
        }
        inserted.removeAll()
        changed.removeAll()
        changedOrder.removeAll()
        deleted.removeAll()
        deletedOrder.removeAll()
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: [
            NotificationKey.insertedIdentifiers.rawValue: insertedIDs,
            NotificationKey.updatedIdentifiers.rawValue: updatedIDs,
            NotificationKey.deletedIdentifiers.rawValue: deletedIDs,
        ])
    }

    /// Writes the pending changes inside an open transaction. Touches no in-memory state but the
    /// new rows' `pendingPK`, which `save()` clears on failure, so a failure leaves the context
    /// exactly as it was.
    private func write(_ db: SQLiteConnection) throws {
        // Primary keys for new rows, allocated under the write lock.
        var next: [ObjectIdentifier: Int64] = [:]
        for m in inserted {
            let d = m.persistentBackingData
            guard let layout = d.layout, let table = mapping.table(for: layout) else { continue }
            let key = ObjectIdentifier(table)
            if next[key] == nil {
                let max = try db.scalar("SELECT coalesce(max(\"Z_PK\"), 0) FROM \(quoteIdentifier(table.name))")
                if case .integer(let n)? = max { next[key] = n } else { next[key] = 0 }
            }
            next[key]! += 1
            d.pendingPK = next[key]!
        }
        func pk(of model: any PersistentModel) -> Int64? {
            let d = model.persistentBackingData
            if d.pk != 0 { return d.pk }
            return d.pendingPK != 0 ? d.pendingPK : nil
        }
        func foreignKeyValue(_ d: BackingData, _ slot: Int) -> SQLValue {
            if let fk = d.unresolvedForeignKey(slot) { return fk != 0 ? .integer(fk) : .null }
            if slot < d.values.count, let v = d.values[slot] {
                guard let target = d.layout?.slots[slot].toOneModel(v), !target.isDeleted else { return .null }
                return pk(of: target).map { .integer($0) } ?? .null
            }
            return .null
        }
        func encode(_ d: BackingData, _ read: StoreMapping.Table.ColumnRead, model: any PersistentModel) throws -> SQLValue {
            if let codec = read.codec {
                var value = read.slot < d.values.count ? d.values[read.slot] : nil
                if value == nil, let s = d.layout?.slots[read.slot], s.isConstant { value = model[keyPath: s.keyPath] }
                do {
                    return try codec.encode(value)
                } catch var e as SwiftDataError {
                    e.entityName = d.layout?.name
                    e.propertyName = d.layout?.slots[read.slot].name
                    throw e
                }
            }
            return foreignKeyValue(d, read.slot)
        }

        // Inserts: one prepared statement per entity, reused for every row of it.
        var byEntity: [ObjectIdentifier: [any PersistentModel]] = [:]
        var entityOrder: [ModelLayout] = []
        for m in inserted {
            guard let layout = m.persistentBackingData.layout else { continue }
            let key = ObjectIdentifier(layout)
            if byEntity[key] == nil { entityOrder.append(layout) }
            byEntity[key, default: []].append(m)
        }
        for layout in entityOrder {
            guard let table = mapping.table(for: layout), let ent = table.entityID(layout) else { continue }
            let reads = table.plan(layout)
            let cols = (["Z_PK", "Z_ENT"] + reads.map { table.columns[Int($0.column) - 2] }).map(quoteIdentifier)
            let sql = "INSERT INTO \(quoteIdentifier(table.name)) (\(cols.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: cols.count).joined(separator: ", ")))"
            let stmt = try db.cachedStatement(sql)
            defer { stmt.reset() }
            for m in byEntity[ObjectIdentifier(layout)] ?? [] {
                let d = m.persistentBackingData
                stmt.bind(d.pendingPK, at: 1)
                stmt.bind(ent, at: 2)
                for (i, read) in reads.enumerated() { try stmt.bind(try encode(d, read, model: m), at: Int32(i + 3)) }
                try step(stmt, layout)
            }
        }
        // Updates: only the changed columns.
        for id in changedOrder {
            guard let m = changed[id] else { continue }
            let d = m.persistentBackingData
            guard d.status == .persisted, let layout = d.layout, let table = mapping.table(for: layout) else { continue }
            let reads = table.plan(layout).filter { $0.slot < d.changed.count && d.changed[$0.slot] }
            guard !reads.isEmpty else { continue }
            let sets = reads.map { "\(quoteIdentifier(table.columns[Int($0.column) - 2])) = ?" }
            let sql = "UPDATE \(quoteIdentifier(table.name)) SET \(sets.joined(separator: ", ")) WHERE \"Z_PK\" = ?"
            try runWrite(db, sql, layout) { stmt in
                for (i, read) in reads.enumerated() { try stmt.bind(try encode(d, read, model: m), at: Int32(i + 1)) }
                stmt.bind(d.pk, at: Int32(reads.count + 1))
            }
        }
        // Join tables: pairs of new models, and the difference for changed ones.
        for m in inserted + changedOrder.compactMap({ changed[$0] }) {
            let d = m.persistentBackingData
            guard let layout = d.layout, let own = pk(of: m) else { continue }
            for slot in layout.relationshipSlots where layout.slots[slot].isToMany {
                guard case .joinTable(let name, let ownCol, let otherCol)? = mapping.storage(of: layout, slot: slot),
                      slot < d.values.count, let current = d.values[slot] else { continue }
                let isNew = d.status == .inserted
                guard isNew || (slot < d.changed.count && d.changed[slot]) else { continue }
                let now = RelationshipGraph.models(in: current).filter { !$0.isDeleted }
                let before = isNew ? [] : RelationshipGraph.models(in: d.committed?[slot] ?? nil)
                let nowIDs = Set(now.map { ObjectIdentifier($0) }), beforeIDs = Set(before.map { ObjectIdentifier($0) })
                let q = quoteIdentifier(name), oc = quoteIdentifier(ownCol), tc = quoteIdentifier(otherCol)
                for gone in before where !nowIDs.contains(ObjectIdentifier(gone)) {
                    guard let other = pk(of: gone) else { continue }
                    try db.run("DELETE FROM \(q) WHERE \(oc) = ? AND \(tc) = ?", [.integer(own), .integer(other)])
                }
                for added in now where !beforeIDs.contains(ObjectIdentifier(added)) {
                    guard let other = pk(of: added) else { continue }
                    try db.run("INSERT OR IGNORE INTO \(q) (\(oc), \(tc)) VALUES (?, ?)", [.integer(own), .integer(other)])
                }
            }
        }
        // Deletes: the row, its join-table pairs, and references to it from rows not in memory.
        for id in deletedOrder {
            guard let m = deleted[id] else { continue }
            let d = m.persistentBackingData
            guard let layout = d.layout, let table = mapping.table(for: layout) else { continue }
            try db.run("DELETE FROM \(quoteIdentifier(table.name)) WHERE \"Z_PK\" = ?", [.integer(d.pk)])
            for (other, column) in mapping.inboundForeignKeys(to: table) {
                try db.run("UPDATE \(quoteIdentifier(other.name)) SET \(quoteIdentifier(column)) = NULL WHERE \(quoteIdentifier(column)) = ?", [.integer(d.pk)])
            }
            for (name, column) in mapping.joinTables(touching: table) {
                try db.run("DELETE FROM \(quoteIdentifier(name)) WHERE \(quoteIdentifier(column)) = ?", [.integer(d.pk)])
            }
        }
    }

    private func runWrite(_ db: SQLiteConnection, _ sql: String, _ layout: ModelLayout,
                          bind: (SQLiteStatement) throws -> Void) throws {
        let stmt = try db.cachedStatement(sql)
        defer { stmt.reset() }
        try bind(stmt)
        try step(stmt, layout)
    }

    /// Executes a bound write statement, naming the model in a constraint failure.
    private func step(_ stmt: SQLiteStatement, _ layout: ModelLayout) throws {
        do {
            try stmt.execute()
        } catch let e as SQLiteError where e.code == .constraint {
            throw SwiftDataError(SwiftDataError.uniqueConstraintViolation.code,
                                 "a \(layout.name) collides with a stored one on a unique attribute (\(e.message)); nothing was saved",
                                 entityName: layout.name, sql: stmt.sql, underlying: e)
        }
    }

    /// Applies delete rules to pending deletes, repeatedly, until nothing new is deleted:
    /// `.cascade` deletes the related models, `.nullify` and `.noAction` unlink them, `.deny`
    /// throws ``SwiftDataError/deleteRuleDenied`` while related models remain.
    func propagateDeletes() throws {
        var index = 0
        while index < deletedOrder.count {
            guard let m = deleted[deletedOrder[index]] else { index += 1; continue }
            index += 1
            let d = m.persistentBackingData
            guard let layout = d.layout else { continue }
            for slot in layout.relationshipSlots {
                let s = layout.slots[slot]
                let related = RelationshipGraph.models(in: RelationshipGraph.currentValue(m, d, s))
                    .filter { !$0.isDeleted }
                guard !related.isEmpty else { continue }
                switch s.relationship?.deleteRule ?? .nullify {
                case .deny:
                    throw SwiftDataError(SwiftDataError.deleteRuleDenied.code,
                                         "\(layout.name) cannot be deleted while its '\(s.name)' relationship holds \(related.count) model(s) (delete rule .deny); nothing was saved",
                                         entityName: layout.name, propertyName: s.name)
                case .cascade:
                    for r in related { deleteAny(r) }
                case .nullify, .noAction:
                    if let (il, islot) = layout.inverse(of: slot) {
                        for r in related { RelationshipGraph.unlink(r, inverse: il.slots[islot], from: m) }
                    }
                }
            }
        }
    }
}

extension SQLiteConnection {
    /// `immediateTransaction`, with SQLite errors turned into ``SwiftDataError/storeError``.
    func immediateTransactionMapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try immediateTransaction(body)
        } catch let e as SwiftDataError {
            throw e
        } catch let e as SQLiteError {
            throw SwiftDataError(SwiftDataError.storeError.code, "the save failed and was rolled back; nothing was written",
                                 sql: e.sql, underlying: e)
        }
    }
}
