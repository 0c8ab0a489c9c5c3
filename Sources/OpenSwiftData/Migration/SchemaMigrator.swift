import Foundation

/// Brings a store file written with an older ``VersionedSchema`` of a ``SchemaMigrationPlan`` up
/// to the container's models before the container opens it.
///
/// 1. The store's version is the plan schema whose entity version hashes equal the store's
///    `NSStoreModelVersionHashes` (ties between versions with equal hashes go to the version the
///    store records in `NSStoreModelVersionIdentifiers`); the container's version is the plan
///    schema with the container's hashes.
/// 2. The stages from the store's version to the container's are chained by `fromVersion`.
/// 3. The store's write lock is taken (`BEGIN IMMEDIATE`) and held until the end, so no other
///    connection or process writes rows the migration would miss or migrates the file at the
///    same time; the version is read again under it, and the working copies of killed
///    migrations of the store are removed under it (MIG-26; also when an open finds the store
///    already current but such copies beside it).
/// 4. The stages run on a private copy of the content: `willMigrate` through a container of the
///    old version's models, the schema change (``StoreMigration``) in one transaction,
///    `didMigrate` through the new version's models.
/// 5. The migrated copy replaces the store's content in the transaction holding the lock, and
///    commits: a failure anywhere before leaves the file as it was (MIG-11), and a crash before
///    the commit is rolled back by SQLite.
///
/// A step from a version the plan has no stage from is an inferred lightweight stage to the
/// next version (MIG-23). Without a plan, ``inferIfNeeded()`` runs the same machinery for one
/// inferred stage from the model rebuilt from the store (``InferredSource``).
///
/// Refusals, each before anything is written: a store newer than the container's version
/// (`backwardMigration`, MIG-08), a store matching no version (`unknownSchema`),
/// `allowsSave: false`.
struct SchemaMigrator {
    /// The plan; `nil` for an inferred migration (``inferIfNeeded()``).
    let plan: (any SchemaMigrationPlan.Type)?
    /// The container's mapping.
    let target: StoreMapping
    let url: URL
    let allowsSave: Bool

    /// A plan schema, its mapping and hashes.
    private struct Version {
        let type: any VersionedSchema.Type
        let mapping: StoreMapping
        var name: String { "\(String(describing: type)) (\(type.versionIdentifier))" }
    }

    /// What a migration did, for ``ModelContainer/migrationReport``.
    struct Outcome {
        var stages: [String] = []
        var warnings: [String] = []
    }

    /// Migrates the file when its model is an older version of the plan; does nothing for a
    /// missing or empty file, or one already at the container's version.
    func migrateIfNeeded() throws -> Outcome {
        guard let plan, try SQLiteStore.checkPath(url) == .nonEmpty else { return Outcome() }
        let probe = try SQLiteStore.openConnection(url, mode: .readOnly)
        defer { probe.close() }
        let stored: StoreMetadata
        do {
            // Not a Core Data store: opening reports it.
            guard try SQLiteStore.tableNames(probe).contains("Z_METADATA") else { return Outcome() }
            stored = try SQLiteStore.storedMetadata(probe, url: url)
        } catch let e as SQLiteError {
            throw SQLiteStore.openError(e, url: url, modified: false)
        }
        let targetHashes = target.versionHashes
        let versions = try plan.schemas.map { type -> Version in
            let schema = Schema(versionedSchema: type)
            if let error = schema.buildError { throw error }
            return Version(type: type, mapping: try StoreMapping(schema: schema))
        }
        let planName = String(describing: plan)
        let matchingTarget = versions.indices.filter { versions[$0].mapping.versionHashes == targetHashes }
        let matchingStore = versions.indices.filter { versions[$0].mapping.versionHashes == stored.versionHashes }
        guard let targetIndex = matchingTarget.last else {
            if stored.versionHashes == targetHashes { return removeStaleScratch() }
            // Name the closest version and the entities that differ from it.
            func differing(_ v: Version) -> [String] {
                let hashes = v.mapping.versionHashes
                return StoreModel.sorted(
                    Set(hashes.keys).union(targetHashes.keys).filter { hashes[$0] != targetHashes[$0] })
            }
            let closest = versions.min { differing($0).count < differing($1).count }
            let hint =
                closest.map {
                    " Closest is \($0.name), which differs in \(differing($0).joined(separator: ", ")); a container for some of a version's models lacks the others: create it with Schema(versionedSchema: \(String(describing: $0.type)).self)."
                } ?? ""
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "the container's models are not one of \(planName)'s schemas (\(versions.map(\.name).joined(separator: ", "))); list the current VersionedSchema last in `schemas`.\(hint) The store was not modified.",
                url: url)
        }
        guard
            let storeIndex = matchingStore.last(where: {
                stored.versionIdentifiers.contains(versions[$0].type.versionIdentifier.description)
            })
                ?? matchingStore.last
        else {
            throw unknownVersion(stored, versions: versions, planName: planName, probe: probe)
        }
        if storeIndex == targetIndex { return removeStaleScratch() }
        if storeIndex > targetIndex {
            throw SwiftDataError(
                SwiftDataError.backwardMigration.code,
                "the store was written with \(versions[storeIndex].name), newer than the container's models \(versions[targetIndex].name); open it with the newer app. It was not modified.",
                url: url)
        }
        let path = try stages(plan, from: storeIndex, to: targetIndex, versions: versions, planName: planName)
        guard allowsSave else {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "the store needs migrating from \(versions[storeIndex].name) to \(versions[targetIndex].name), which a configuration with allowsSave: false cannot do; open it once with saving allowed. It was not modified.",
                url: url)
        }
        let steps = path.map { stage, from, to in
            // A step the plan has no stage for is inferred.
            let inferred = !plan.stages.contains {
                ObjectIdentifier($0.fromVersion) == ObjectIdentifier(versions[from].type)
            }
            let name = inferred ? "\(stage) (inferred)" : stage.description
            return Step(
                name: name,
                migration: StoreMigration(
                    old: versions[from].mapping.layout, new: versions[to].mapping, stageName: name),
                stage: stage, old: versions[from].type, new: versions[to].type,
                missingStageAdvice: inferred
                    ? "\(planName) has no stage from \(versions[from].name), and this change cannot be inferred: add a custom stage `.custom(fromVersion: \(String(describing: versions[from].type)).self, toVersion: \(String(describing: versions[to].type)).self, …)` to `stages` (see the Migrations article)."
                    : nil)
        }
        return try run(
            steps, storeHashes: versions[storeIndex].mapping.versionHashes,
            targetHashes: versions[targetIndex].mapping.versionHashes)
    }

    /// Migrates a store written with other models than the container's, without a plan, by
    /// inferring the model it was written with (``InferredSource``) and running the lightweight
    /// schema change on it like a plan's stage (same lock, working copy and commit: the file is
    /// left as it was, or migrated). Returns `nil`, doing nothing, when this does not apply: a
    /// plan is given, saving is not allowed, the file is missing, empty or not a Core Data
    /// store; the open then reports what it finds. A store that has the container's models by
    /// now (another process migrated it) needs nothing: an empty outcome.
    ///
    /// - Throws: ``SwiftDataError/incompatibleSchema`` naming each change that cannot be
    ///   inferred (and the Migrations article); the errors of a plan migration.
    func inferIfNeeded() throws -> Outcome? {
        guard plan == nil, allowsSave, try SQLiteStore.checkPath(url) == .nonEmpty,
            let (stored, inferred) = try inferSource()
        else { return nil }
        guard let source = inferred else { return Outcome() }
        let name = "inferred lightweight"
        let step = Step(
            name: name,
            migration: StoreMigration(
                old: source.layout, new: target, stageName: name, obsoleteTables: source.obsoleteTables))
        let outcome: Outcome
        do {
            outcome = try run([step], storeHashes: stored.versionHashes, targetHashes: target.versionHashes)
        } catch let e as SwiftDataError where e.code == SwiftDataError.incompatibleSchema.code {
            throw SwiftDataError(
                e.code, "\(e.message) \(InferredSource.planAdvice)", entityName: e.entityName,
                propertyName: e.propertyName, url: url, underlying: e)
        }
        if !outcome.stages.isEmpty {
            let changes = source.summary.isEmpty ? "" : ": " + source.summary.joined(separator: "; ")
            FileHandle.standardError.write(
                Data("OpenSwiftData: notice: \(url.lastPathComponent): inferred lightweight migration\(changes)\n".utf8)
            )
        }
        return outcome
    }

    /// The store's metadata and rebuilt model (`nil` when it has the container's models), read
    /// through a connection of its own that is closed before the migration takes the lock;
    /// `nil` when the file is no Core Data store.
    private func inferSource() throws -> (StoreMetadata, InferredSource?)? {
        let probe = try SQLiteStore.openConnection(url, mode: .readOnly)
        defer { probe.close() }
        do {
            guard try SQLiteStore.tableNames(probe).contains("Z_METADATA") else { return nil }
            let stored = try SQLiteStore.storedMetadata(probe, url: url)
            guard stored.versionHashes != target.versionHashes else { return (stored, nil) }
            return (stored, try InferredSource.infer(probe, stored: stored, target: target, url: url))
        } catch let e as SQLiteError {
            throw SQLiteStore.openError(e, url: url, modified: false)
        }
    }

    /// Removes the working copies a killed migration left beside a store that needs no
    /// migration (one killed after its commit, or another process finished the migration),
    /// under the store's write lock; does nothing when there are none (the usual open) or the
    /// configuration never saves. Best effort: when the lock cannot be had (another connection
    /// keeps writing past the busy timeout) the files stay for the next open, and this open
    /// goes on. Returns the empty outcome.
    private func removeStaleScratch() -> Outcome {
        guard allowsSave, !MigrationLock.scratchFiles(of: url).isEmpty else { return Outcome() }
        do {
            let lock = try MigrationLock(url: url)
            defer { lock.release() }
            lock.removeStaleScratch()
        } catch {
            // Leftover scratch costs disk space only; the store opens as it is.
        }
        return Outcome()
    }

    /// The chain of stages from version `from` to `to`.
    private func stages(
        _ plan: any SchemaMigrationPlan.Type, from: Int, to: Int, versions: [Version], planName: String
    ) throws -> [(
        MigrationStage, Int, Int
    )] {
        func index(of type: any VersionedSchema.Type) -> Int? {
            versions.firstIndex { ObjectIdentifier($0.type) == ObjectIdentifier(type) }
        }
        var path: [(MigrationStage, Int, Int)] = []
        var current = from
        while current != to {
            guard let stage = plan.stages.first(where: { index(of: $0.fromVersion) == current }) else {
                // No stage from this version: the step to the next one is inferred (MIG-23).
                let stage = MigrationStage.lightweight(
                    fromVersion: versions[current].type, toVersion: versions[current + 1].type)
                path.append((stage, current, current + 1))
                current += 1
                continue
            }
            guard let next = index(of: stage.toVersion), next > current, next <= to else {
                throw SwiftDataError(
                    SwiftDataError.loadIssueModelContainer.code,
                    "\(planName)'s stage \(stage) does not lead from \(versions[current].name) towards \(versions[to].name) (its toVersion must be a later schema in `schemas`, not past the container's). The store was not modified.",
                    url: url)
            }
            path.append((stage, current, next))
            current = next
        }
        return path
    }

    /// `backwardMigration` when the store records a version newer than every one the plan
    /// knows, else `unknownSchema` naming what differs from the container's models.
    private func unknownVersion(
        _ stored: StoreMetadata, versions: [Version], planName: String,
        probe: SQLiteConnection
    ) -> SwiftDataError {
        let known = versions.map { $0.type.versionIdentifier }
        let recorded = stored.versionIdentifiers.compactMap(SchemaMigrator.parseVersion)
        if let newest = known.max(), let storeVersion = recorded.max(), storeVersion > newest {
            return SwiftDataError(
                SwiftDataError.backwardMigration.code,
                "the store was written with schema version \(storeVersion), newer than every version \(planName) knows (newest \(newest)); open it with the newer app. It was not modified.",
                url: url)
        }
        var detail = ""
        do {
            try target.checkCompatible(stored, db: probe, url: url)
        } catch let e as SwiftDataError {
            detail = e.message.components(separatedBy: "\n").dropFirst().joined(separator: "\n")
        } catch {
            detail = "\(error)"
        }
        return SwiftDataError(
            SwiftDataError.unknownSchema.code,
            "the store's model is none of \(planName)'s schemas (\(versions.map(\.name).joined(separator: ", "))), so no stage applies; it was not modified. Compared with the container's models:\n"
                + detail,
            url: url)
    }

    /// `1.2.3` → a version.
    static func parseVersion(_ text: String) -> Schema.Version? {
        let parts = text.split(separator: ".").map { Int($0) }
        guard parts.count == 3, let a = parts[0], let b = parts[1], let c = parts[2] else { return nil }
        return Schema.Version(a, b, c)
    }

    // MARK: Running

    /// One schema change of a run: a stage of the plan (with its closures), one the plan lacks,
    /// or the inferred migration of a container without a plan.
    private struct Step {
        /// `lightweight 1.0.0 → 2.0.0`, `… (inferred)`, `inferred lightweight`.
        let name: String
        let migration: StoreMigration
        /// The plan's stage, for its closures.
        var stage: MigrationStage?
        var old: (any VersionedSchema.Type)?
        var new: (any VersionedSchema.Type)?
        /// Appended to a refusal of a step inferred for lack of a stage.
        var missingStageAdvice: String?
    }

    /// Runs `steps` on a working copy under the store's write lock and writes the result back
    /// (see the type's documentation), when the store still has `storeHashes`.
    private func run(_ steps: [Step], storeHashes: [String: Data], targetHashes: [String: Data]) throws -> Outcome {
        let fm = FileManager.default
        let work = MigrationLock.newScratch(for: url)
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] where fm.fileExists(atPath: work.path + suffix) {
                try? fm.removeItem(atPath: work.path + suffix)  // a private scratch copy; the store is untouched
            }
        }
        // The store's write lock, held from before the copy until the migrated content is
        // committed: no other connection or process can write rows the migration would not
        // carry over, or migrate the same file at the same time.
        let lock = try MigrationLock(url: url)
        defer { lock.release() }
        // The working copies of migrations that were killed before removing theirs.
        lock.removeStaleScratch()
        // Re-read under the lock: another process may have migrated it meanwhile.
        let stored = try storeStep("reading the store's metadata") { try lock.storedMetadata() }
        if stored.versionHashes == targetHashes { return Outcome() }
        guard stored.versionHashes == storeHashes else {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "the store changed to another model while its migration was starting; it was not modified. Try again",
                url: url)
        }
        try storeStep("copying the store") { try lock.copyContents(to: work) }
        var outcome = Outcome()
        for step in steps {
            if case .custom(_, _, let willMigrate?, _)? = step.stage, let old = step.old {
                try runClosure(willMigrate, "willMigrate", step.name, schema: old, at: work)
            }
            do {
                try storeStep(step.name) { try MigrationLock.run(step.migration, at: work) }
            } catch let e as SwiftDataError
                where e.code == SwiftDataError.incompatibleSchema.code && step.missingStageAdvice != nil
            {
                throw SwiftDataError(
                    e.code, "\(e.message) \(step.missingStageAdvice ?? "")", entityName: e.entityName,
                    propertyName: e.propertyName, url: url, underlying: e)
            }
            outcome.warnings += step.migration.warnings()
            if case .custom(_, _, _, let didMigrate?)? = step.stage, let new = step.new {
                try runClosure(didMigrate, "didMigrate", step.name, schema: new, at: work)
            }
            outcome.stages.append(step.name)
        }
        // The migrated copy replaces the store's content in the transaction holding the lock.
        try storeStep("writing the migrated store back") { try lock.commit(from: work) }
        for warning in outcome.warnings {
            FileHandle.standardError.write(Data("OpenSwiftData: warning: \(warning)\n".utf8))
        }
        return outcome
    }

    /// Runs a stage's closure on a context of `schema`'s models over the working copy and saves
    /// what it left unsaved.
    private func runClosure(
        _ body: (ModelContext) throws -> Void, _ name: String, _ stage: String,
        schema: any VersionedSchema.Type, at work: URL
    ) throws {
        do {
            let container = try ModelContainer(
                for: Schema(versionedSchema: schema),
                configurations: ModelConfiguration(url: work))
            let context = ModelContext(container)
            try body(context)
            if context.hasChanges { try context.save() }
        } catch let e as SwiftDataError {
            throw SwiftDataError(
                e.code, "migration \(stage), \(name): \(e.message). The store was not modified.",
                entityName: e.entityName, propertyName: e.propertyName, sql: e.sql, url: url,
                underlying: e)
        } catch {
            throw SwiftDataError(
                SwiftDataError.loadIssueModelContainer.code,
                "migration \(stage): \(name) threw \(error). The store was not modified.",
                url: url, underlying: error)
        }
    }

    /// Runs a file step, turning SQLite's errors into ``SwiftDataError/storeError``.
    private func storeStep<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SwiftDataError {
            var wrapped = e
            wrapped.url = url
            throw wrapped
        } catch {
            throw SwiftDataError(
                SwiftDataError.storeError.code,
                "migration failed while \(what); the store was not modified", url: url, underlying: error)
        }
    }
}
