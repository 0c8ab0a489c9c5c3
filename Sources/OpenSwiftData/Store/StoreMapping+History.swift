import Foundation

extension StoreMapping {
    /// How history records one model class: its entity number, the bit of each slot in an
    /// update's `ZCOLUMNS` bitmap, and the slots whose values a delete's tombstone keeps.
    /// A class: every history row of a save reads it, and a struct would be copied with its
    /// arrays and dictionaries each time.
    final class HistoryInfo {
        /// `Z_ENT` of the class.
        let entity: Int64
        /// The recorded properties, sorted by name (``StoreModel/historyProperties(of:)``).
        let properties: [String]
        /// Slot index → bit index in ``properties``.
        let bitOfSlot: [Int: Int]
        /// Bit index → slot index.
        let slotOfBit: [Int: Int]
        /// The `.preserveValueOnDeletion` slots, in `ZTOMBSTONE0…` order.
        let tombstoneSlots: [Int]
        /// The bitmap with every recorded property set (an upsert replaces them all), made once.
        private(set) var allProperties = Data()

        init(entity: Int64, properties: [String], bitOfSlot: [Int: Int], slotOfBit: [Int: Int], tombstoneSlots: [Int]) {
            self.entity = entity
            self.properties = properties
            self.bitOfSlot = bitOfSlot
            self.slotOfBit = slotOfBit
            self.tombstoneSlots = tombstoneSlots
            allProperties = bitmap(Array(bitOfSlot.keys))
        }

        /// The `ZCOLUMNS` bitmap of `slots`: bit *i* from the most significant bit of byte 0.
        func bitmap(_ slots: [Int]) -> Data {
            var bytes = [UInt8](repeating: 0, count: max(1, (properties.count + 7) / 8))
            for slot in slots {
                guard let bit = bitOfSlot[slot] else { continue }
                bytes[bit / 8] |= UInt8(0x80) >> UInt8(bit % 8)
            }
            return Data(bytes)
        }

        /// The slots whose bits are set in `bitmap`.
        func slots(in bitmap: Data) -> [Int] {
            var out: [Int] = []
            for (byteIndex, byte) in bitmap.enumerated() {
                for i in 0..<8 where byte & (UInt8(0x80) >> UInt8(i)) != 0 {
                    if let slot = slotOfBit[byteIndex * 8 + i] { out.append(slot) }
                }
            }
            return out
        }
    }

    func buildHistoryInfo() {
        for table in tables {
            for e in table.entities {
                guard let number = table.entityID(e) else { continue }
                layoutsByEntityNumber[number] = e
                let properties = model.historyProperties(of: e.name)
                var bitOfSlot: [Int: Int] = [:]
                var slotOfBit: [Int: Int] = [:]
                for (bit, name) in properties.enumerated() {
                    guard let slot = e.slotByName[name] else { continue }
                    bitOfSlot[slot] = bit
                    slotOfBit[bit] = slot
                }
                let tombstones = model.tombstoneAttributes(of: e.name).compactMap { e.slotByName[$0] }
                historyInfos[ObjectIdentifier(e.type)] = HistoryInfo(
                    entity: number, properties: properties, bitOfSlot: bitOfSlot,
                    slotOfBit: slotOfBit, tombstoneSlots: tombstones)
            }
        }
    }

    /// The history information of `layout`.
    func historyInfo(_ layout: ModelLayout) -> HistoryInfo? { historyInfos[ObjectIdentifier(layout.type)] }
}
