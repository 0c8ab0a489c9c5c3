/// The OpenSwiftData release this harness belongs to, printed by `harness --version`; bumped
/// together with the release tag (`git tag 0.1.0`).
let harnessVersion = "0.1.0"
