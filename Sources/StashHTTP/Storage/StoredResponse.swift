import Foundation
import HTTPTypes
import StashCore

/// One response as the cache keeps it: what the origin sent (minus the fields a cache must
/// not store), the request fields its `Vary` selects, and when it was requested and received
/// (the two times the age calculation of RFC 9111 §4.2.3 needs).
///
/// The fields every lookup reads (`Date`, `Cache-Control` as each mode sees it, `Age`,
/// validators, the `Vary` selection) are parsed once, when the fields are set, not on every
/// hit.
///
/// A value type with one reference inside: copying a stored response (a lookup hands out a
/// copy of each variant it looks at) costs one retain, not one per field, and the rare
/// change (freshening after a `304`) copies the storage first when it is shared. The storage
/// also keeps the last response it handed out, keyed by its `Age` in whole seconds, so that
/// the hits on one response within one second share one set of fields.
struct StoredResponse: Sendable, Equatable {
    private var storage: Storage

    init(
        status: Int, reasonPhrase: String, headerFields: HTTPFields, body: Data, bodyFile: BodyFile? = nil,
        requestTime: Date, responseTime: Date, selectingFields: [String: String?]
    ) {
        storage = Storage(
            status: status, reasonPhrase: reasonPhrase, headerFields: headerFields, body: body,
            requestTime: requestTime, responseTime: responseTime, selectingFields: selectingFields
        )
        storage.bodyFile = bodyFile
        derive()
    }

    var status: Int {
        get { storage.status }
        set {
            unique().status = newValue
            derive()
        }
    }

    var reasonPhrase: String {
        get { storage.reasonPhrase }
        set { unique().reasonPhrase = newValue }
    }

    var headerFields: HTTPFields {
        get { storage.headerFields }
        set {
            let storage = unique()
            storage.headerFields = newValue
            storage.parsed = ParsedFields(newValue)
            derive()
        }
    }

    var body: Data {
        get { storage.body }
        set { unique().body = newValue }
    }

    /// Where the body is when it is kept in a file of the disk cache rather than in `body`
    /// (which is then empty): bodies too large to hold in memory.
    var bodyFile: BodyFile? {
        get { storage.bodyFile }
        set { unique().bodyFile = newValue }
    }

    /// The body's length, wherever it is kept.
    var bodyLength: Int { storage.bodyFile?.length ?? storage.body.count }

    /// A body kept as a file-backed value of the cache's `DiskCache`.
    struct BodyFile: Sendable, Equatable {
        /// The `DiskCache` key of the file.
        var key: String
        var length: Int
    }

    /// When the request that produced this response was sent.
    var requestTime: Date {
        get { storage.requestTime }
        set {
            unique().requestTime = newValue
            derive()
        }
    }

    /// When the response was received.
    var responseTime: Date {
        get { storage.responseTime }
        set {
            unique().responseTime = newValue
            derive()
        }
    }

    /// The `Vary`-named request fields (lowercased names) and their normalised values, `nil`
    /// when the request did not carry the field.
    var selectingFields: [String: String?] {
        get { storage.selectingFields }
        set {
            let storage = unique()
            storage.selectingFields = newValue
            storage.selection = Vary.Selection(newValue)
        }
    }

    /// `headerFields`, parsed.
    var parsed: ParsedFields { storage.parsed }

    /// `selectingFields`, ready to match against a request.
    var selection: Vary.Selection { storage.selection }

    /// What a server made of this response to send it (``FreshHit/prepared(_:)``): the form
    /// `make` returns the first time, kept until anything of the response changes.
    func prepared<Form: AnyObject & Sendable>(_ make: () -> Form) -> Form { storage.prepared(make) }

    /// Age and freshness, as far as they do not depend on the time of the lookup.
    var derived: Derived { storage.derived }

    /// What a lookup reads of age and freshness, worked out when the response is set (see
    /// `Freshness.swift` and `Reuse.swift` for the rules).
    struct Derived: Sendable {
        /// RFC 9111 §4.2.3's corrected initial age.
        var correctedInitialAge: TimeInterval = 0
        var privateRules = Reuse.Rules()
        var sharedRules = Reuse.Rules()
    }

    /// Works ``derived`` out again after a change (the storage is this value's alone then).
    private mutating func derive() {
        storage.derived = Derived(self)
    }

    static func == (lhs: StoredResponse, rhs: StoredResponse) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.hasSameContent(as: rhs.storage)
    }

    /// The storage, copied first when another stored response shares it; what was made from
    /// it (the response handed out last, a server's wire form) is forgotten, since the change
    /// may alter it.
    private mutating func unique() -> Storage {
        if isKnownUniquelyReferenced(&storage) {
            storage.forgetServed()
        } else {
            storage = storage.copy()
        }
        return storage
    }

    /// What a stored response holds. Changed only through ``StoredResponse/unique()``, that
    /// is while no other value refers to it, which is what makes it safe to share.
    private final class Storage: @unchecked Sendable {
        // What every lookup reads comes first, so that it shares the object's first lines:
        // the selection for each variant looked at, the rest for the one chosen.
        var selection: Vary.Selection
        var derived = Derived()
        var responseTime: Date
        var status: Int
        var reasonPhrase: String
        var headerFields: HTTPFields
        var body: Data
        var bodyFile: BodyFile?
        var requestTime: Date
        var selectingFields: [String: String?]
        var parsed: ParsedFields
        /// What is made from the response on demand, behind `madeLock`: the response
        /// handed out last with its `Age` in whole seconds, and a server's wire form.
        private var served: (age: Int, response: HTTPResponse)?
        private var preparedForm: (any AnyObject & Sendable)?
        private let madeLock = Lock()

        init(
            status: Int, reasonPhrase: String, headerFields: HTTPFields, body: Data,
            requestTime: Date, responseTime: Date, selectingFields: [String: String?]
        ) {
            self.status = status
            self.reasonPhrase = reasonPhrase
            self.headerFields = headerFields
            self.body = body
            self.requestTime = requestTime
            self.responseTime = responseTime
            self.selectingFields = selectingFields
            parsed = ParsedFields(headerFields)
            selection = Vary.Selection(selectingFields)
        }

        func copy() -> Storage {
            let copy = Storage(
                status: status, reasonPhrase: reasonPhrase, headerFields: headerFields, body: body,
                requestTime: requestTime, responseTime: responseTime, selectingFields: selectingFields
            )
            copy.derived = derived
            copy.bodyFile = bodyFile
            return copy
        }

        func hasSameContent(as other: Storage) -> Bool {
            status == other.status && reasonPhrase == other.reasonPhrase && headerFields == other.headerFields
                && body == other.body && bodyFile == other.bodyFile && requestTime == other.requestTime && responseTime == other.responseTime
                && selectingFields == other.selectingFields
        }

        /// Forgets what was made from the response before it changes.
        func forgetServed() {
            madeLock.withLock {
                served = nil
                preparedForm = nil
            }
        }

        /// The response for `age` (in whole seconds), built by `make` unless it is the one
        /// handed out last.
        func served(age: Int, _ make: () -> HTTPResponse) -> HTTPResponse {
            if let last = madeLock.withLock({ served }), last.age == age { return last.response }
            let response = make()
            madeLock.withLock { served = (age, response) }
            return response
        }

        /// The wire form kept here, or the one `make` returns (then kept). Two threads may
        /// both make one; the first kept wins and both get it.
        func prepared<Form: AnyObject & Sendable>(_ make: () -> Form) -> Form {
            if let kept = madeLock.withLock({ preparedForm }) as? Form { return kept }
            let made = make()
            return madeLock.withLock {
                if let existing = preparedForm as? Form { return existing }
                preparedForm = made
                return made
            }
        }
    }

    /// The fields of a stored response that freshness, age and validation read.
    struct ParsedFields: Sendable, Equatable {
        var date: Date?
        var lastModified: Date?
        var entityTag: EntityTag?
        /// The first `Age` member as delta-seconds, 0 when absent or invalid.
        var ageValue: TimeInterval
        var privateCacheControl: CacheControl
        var sharedCacheControl: CacheControl
        /// The fields a hit hands out before its `Age` and `Content-Length` are added: the
        /// stored ones without those two.
        var servedFields: HTTPFields

        init(_ fields: HTTPFields) {
            date = fields[.date].flatMap(HTTPDate.parse)
            lastModified = fields[.lastModified].flatMap(HTTPDate.parse)
            entityTag = fields[.eTag].flatMap(EntityTag.init)
            if let first = FieldList.members(fields[values: .age]).first, let seconds = CacheControl.deltaSeconds(first) {
                ageValue = TimeInterval(seconds)
            } else {
                ageValue = 0
            }
            privateCacheControl = CacheControl.governing(fields, mode: .private)
            sharedCacheControl = CacheControl.governing(fields, mode: .shared)
            servedFields = fields
            if fields[.age] != nil || fields[.contentLength] != nil {
                servedFields.removeAll { $0.name == .age || $0.name == .contentLength }
            }
        }
    }

    /// The directives that govern a cache in `mode` (targeted fields included, see
    /// ``CacheControl/governing(_:mode:)``).
    func cacheControl(mode: HTTPCacheMode) -> CacheControl {
        mode == .shared ? parsed.sharedCacheControl : parsed.privateCacheControl
    }

    /// The `Date` field, when present and valid.
    var date: Date? { parsed.date }

    /// The `Last-Modified` field, when present and valid.
    var lastModified: Date? { parsed.lastModified }

    /// The `ETag` field, when present and parseable.
    var entityTag: EntityTag? { parsed.entityTag }

    /// Roughly how many bytes this response occupies, for memory limits.
    /// The fields' text is counted once: the served fields and the last response handed
    /// out share it, and add one array of fields each.
    var cost: Int {
        body.count + headerFields.reduce(64) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
            + 2 * (headerFields.count + 2) * MemoryLayout<HTTPField>.stride
    }

    /// `age` as an `Age` field value: whole seconds, rounded down. Dates are `Double`s of
    /// seconds since 2001, so a difference that is exactly 40 s may come out as 39.99999…;
    /// a millisecond of tolerance keeps that from reading as 39.
    static func ageField(_ age: TimeInterval) -> String { String(ageSeconds(age)) }

    /// `age` in whole seconds as ``ageField(_:)`` writes it, at most 2147483648 (RFC 9111
    /// §1.2.2's largest delta-seconds, which an `Age` that overflows is sent as). Never traps:
    /// an age that is not a number (from a stored value that slipped past the decoder's
    /// checks) counts as that largest age, a negative one as 0.
    static func ageSeconds(_ age: TimeInterval) -> Int {
        let largest = CacheControl.maximumDeltaSeconds
        guard age < TimeInterval(largest) else { return largest }
        guard age > 0 else { return 0 }
        return min(largest, Int((age + 0.001).rounded(.down)))
    }

    /// The response the cache hands out: stored fields, a fresh `Age`, the content length.
    func response(age: TimeInterval) -> HTTPResponse {
        let seconds = Self.ageSeconds(age)
        return storage.served(age: seconds) {
            var fields = parsed.servedFields
            fields.reserveCapacity(fields.count + 2)
            fields.append(HTTPField(name: .age, value: String(seconds)))
            fields.append(HTTPField(name: .contentLength, value: String(bodyLength)))
            return HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reasonPhrase), headerFields: fields)
        }
    }
}
