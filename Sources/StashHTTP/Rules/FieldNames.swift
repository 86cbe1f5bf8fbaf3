package import HTTPTypes

extension HTTPField.Name {
    /// `Pragma` (RFC 9111 §5.4), read only for `no-cache`.
    package static let pragma = HTTPField.Name("Pragma")!
    /// `Host`, for requests in origin form that carry no `:authority`.
    package static let hostField = HTTPField.Name("Host")!
}
