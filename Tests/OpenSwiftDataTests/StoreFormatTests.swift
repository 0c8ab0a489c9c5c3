import Foundation
import Testing
@testable import OpenSwiftData

// Apple's store format (Store/Format).

@Suite("StoreFormat SHA-2")
struct StoreFormatSHA2Tests {
    @Test("SHA-256: FIPS 180-4 / NIST test vectors")
    func sha256Vectors() {
        #expect(SHA256.hex(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        var million = SHA256()
        let chunk = [UInt8](repeating: 0x61, count: 1_000)
        for _ in 0..<1_000 { million.update(chunk) }
        #expect(million.finalize() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("SHA-256: incremental updates equal one update, at every split")
    func sha256Incremental() {
        let text = Array("The quick brown fox jumps over the lazy dog, again and again and again!".utf8)
        let whole = SHA256.hex(of: String(decoding: text, as: UTF8.self))
        for split in 0...text.count {
            var h = SHA256()
            h.update(text[..<split])
            h.update(text[split...])
            #expect(h.finalize() == whole)
        }
        #expect(hexString(SHA256.digest(of: text)) == whole)
    }

    @Test("SHA-512: FIPS 180-4 / NIST test vectors")
    func sha512Vectors() {
        #expect(SHA512.hex(of: "") == "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")
        #expect(SHA512.hex(of: "abc") == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(SHA512.hex(of: "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
            == "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909")
        var million = SHA512()
        let chunk = [UInt8](repeating: 0x61, count: 1_000)
        for _ in 0..<1_000 { million.update(chunk) }
        #expect(million.finalize() == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    @Test("SHA-512: incremental updates equal one update, across the 112- and 128-byte boundaries")
    func sha512Incremental() {
        let text = [UInt8](repeating: 0x5A, count: 300)
        for length in [0, 1, 111, 112, 113, 127, 128, 129, 239, 240, 256, 300] {
            let whole = SHA512.digest(of: text[..<length])
            for split in stride(from: 0, through: length, by: 37) {
                var h = SHA512()
                h.update(text[..<split])
                h.update(text[split..<length])
                #expect(h.finalizeDigest() == whole, "length \(length), split \(split)")
            }
        }
    }
}
