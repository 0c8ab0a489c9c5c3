import Foundation

/// Key paths the runtime cannot compare with the macro's metadata — ones written through a
/// protocol requirement (`\T.name` where `T: Keyed`) or through a to-one relationship
/// (`\Book.author?.name`) — are identified by probing: stand-in models carrying a distinct value
/// in every attribute are read through the key path, and the value that comes back names the
/// attribute. Results are cached per layout. Attributes whose type cannot carry a distinct
/// probe value (Bool, Data, enums …) are not found this way; callers then throw as before.
extension ModelLayout {
    /// Where a probed key path leads: an own attribute, or an attribute of a to-one target.
    enum ProbedPath: Equatable {
        case attribute(slot: Int)
        case toOne(relationshipSlot: Int, target: ObjectIdentifier, attributeSlot: Int)
    }

    private static let probeLock = NSLock()
    nonisolated(unsafe) private static var probeCache: [ObjectIdentifier: [AnyKeyPath: ProbedPath?]] = [:]

    /// The attribute `keyPath` reads, found by probing (see the type's documentation).
    func probe(_ keyPath: AnyKeyPath) -> ProbedPath? {
        let key = ObjectIdentifier(self)
        ModelLayout.probeLock.lock()
        if let cached = ModelLayout.probeCache[key]?[keyPath] {
            ModelLayout.probeLock.unlock()
            return cached
        }
        ModelLayout.probeLock.unlock()
        let found = runProbe(keyPath)
        ModelLayout.probeLock.lock()
        ModelLayout.probeCache[key, default: [:]][keyPath] = .some(found)
        ModelLayout.probeLock.unlock()
        return found
    }

    private func runProbe(_ keyPath: AnyKeyPath) -> ProbedPath? {
        // Own attributes first.
        let (ownValues, ownSentinels) = ModelLayout.sentinels(for: self, base: 1_000_003)
        if !ownSentinels.isEmpty, let root = ModelLayout.standIn(self, ownValues),
            let slot = ModelLayout.match(root[keyPath: keyPath], ownSentinels)
        {
            return .attribute(slot: slot)
        }
        // Then attributes of each to-one target.
        for relSlot in relationshipSlots {
            guard case .toOne(let targetType, _) = slots[relSlot].kind, let target = ModelLayout.known(targetType)
            else { continue }
            let (targetValues, sentinels) = ModelLayout.sentinels(for: target, base: 2_000_003)
            guard !sentinels.isEmpty, let targetModel = ModelLayout.standIn(target, targetValues) else { continue }
            var rootValues = SlotValues(repeating: nil, count: slots.count)
            rootValues[relSlot] = targetModel
            guard let root = ModelLayout.standIn(self, rootValues),
                let slot = ModelLayout.match(root[keyPath: keyPath], sentinels)
            else { continue }
            return .toOne(relationshipSlot: relSlot, target: ObjectIdentifier(target), attributeSlot: slot)
        }
        return nil
    }

    private static func sentinels(for layout: ModelLayout, base: Int) -> (SlotValues, [Int: Any]) {
        var values = SlotValues(repeating: nil, count: layout.slots.count)
        var sentinels: [Int: Any] = [:]
        for s in layout.slots {
            guard let codec = s.codec, codec.isComparableInSQL else { continue }
            let n = base + s.index
            let probe: Any?
            switch codec.storedType {
            case is Int.Type: probe = n
            case is Int64.Type: probe = Int64(n)
            case is Int32.Type: probe = Int32(n)
            case is Double.Type: probe = Double(n) + 0.25
            case is String.Type: probe = "\u{1}probe-\(n)"
            case is Date.Type: probe = Date(timeIntervalSinceReferenceDate: Double(n))
            case is UUID.Type: probe = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))
            case is Decimal.Type: probe = Decimal(n) + Decimal(sign: .plus, exponent: -2, significand: 25)
            default: probe = nil
            }
            guard let probe else { continue }
            sentinels[s.index] = probe
            // try?: a probe value that does not round-trip is used as it is (probes read no store).
            values[s.index] = codec.isOptional ? ((try? codec.encode(probe)).flatMap(codec.decode) ?? probe) : probe
        }
        return (values, sentinels)
    }

    private static func standIn(_ layout: ModelLayout, _ values: SlotValues) -> (any PersistentModel)? {
        MaterializationScope.run {
            layout.type.init(
                backingData: BackingData.make(
                    stored: layout, values: values, pk: 0, storeIdentity: StoreIdentity(""),
                    contextHandle: nil))
        }
    }

    private static func match(_ value: Any?, _ sentinels: [Int: Any]) -> Int? {
        guard let value, let flat = _flattenOptional(value) else { return nil }
        for (slot, sentinel) in sentinels
        where Swift.type(of: sentinel) == Swift.type(of: flat) && "\(sentinel)" == "\(flat)" {
            return slot
        }
        return nil
    }
}
