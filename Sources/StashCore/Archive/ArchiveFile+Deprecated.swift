/// The name ``ArchiveFile`` had before 0.1.0; a top-level `Archive` collided with other
/// packages' types of that name.
@available(*, deprecated, renamed: "ArchiveFile")
public typealias Archive<Value: Codable> = ArchiveFile<Value>
