import Foundation
import StashCache

// snippet.hide
/// A decoded image, standing in for `UIImage`, `NSImage` or `CGImage` (this example runs on Linux too).
struct Image: Sendable {
    var width: Int
    var height: Int
    var encoded: Data
}
/// The app's decoder and encoder, standing in for `UIImage(data:)` and `pngData()`.
func decodeImage(_ data: Data) throws -> Image { Image(width: 64, height: 64, encoded: data) }
func encodeImage(_ image: Image) throws -> Data { image.encoded }
let downloaded = Data(repeating: 0x89, count: 40_000)
let url = "https://cdn.example.com/avatars/ada.png"
let systemCaches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
let oldFolder = systemCaches.appendingPathComponent("com.hackemist.SDImageCache/default", isDirectory: true)
try FileManager.default.createDirectory(at: oldFolder, withIntermediateDirectories: true)
// snippet.show
// SDImageCache(namespace: "avatars") / ImageCache(name: "avatars"): a folder of the
// sandbox's caches folder (Library/Caches/avatars), excluded from backup.
var configuration = DiskCache.Configuration()
configuration.sizeLimit = 200 * 1024 * 1024        // maxDiskSize / diskStorage sizeLimit
configuration.defaultExpiry = .sliding(7 * 86_400) // maxDiskAge by access date / diskStorage expiration
configuration.inlineThreshold = 0                  // every image in a file of its own
let disk = try DiskCache(name: "avatars", in: .main, configuration: configuration)

// The memory side keeps decoded images, their cost counted as the image libraries count it.
let memory = MemoryCache<String, Image>(configuration: .init(
    countLimit: 100,                             // maxMemoryCount / memoryStorage countLimit
    costLimit: 64 * 1024 * 1024,                 // maxMemoryCost / memoryStorage totalCostLimit
    defaultExpiry: .sliding(300),                // memoryStorage expiration
    cost: { _, image in image.width * image.height * 4 }
))

// store(image, imageData: data, forKey: url, toDisk: true) / store(image, original: data, forKey: url)
try disk.set(downloaded, forKey: url)
memory.set(try decodeImage(downloaded), forKey: url)

// imageFromCache(forKey:) / retrieveImage(forKey:): memory, else the bytes on disk, decoded by the app
func image(forKey key: String) -> Image? {
    if let image = memory.value(forKey: key) { return image }
    guard let data = disk.data(forKey: key), let image = try? decodeImage(data) else { return nil }
    memory.set(image, forKey: key)
    return image
}

// clearMemory() / clearMemoryCache(); on a memory warning, memory.purge()
memory.removeAll()
let fromDisk = image(forKey: url)

// calculateSize / calculateDiskStorageSize: figures the cache keeps, no walk of the folder
let (count, bytes) = (disk.count, disk.totalSize)

// cachePath(forKey:): the file of a stored value, nil when there is none
let file = disk.fileURL(for: url)
// snippet.hide
let fileExists = file.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
// snippet.show

// deleteOldFiles / cleanExpiredDiskCache; trim() also brings the cache back under its limits
try await disk.removeExpired()
try await disk.trim()

// Or memory and disk in one object, the app's decoder as its codec (memory cost: encoded bytes)
struct ImageCodec: CacheCodec {
    func encode(_ image: Image) throws -> Data { try encodeImage(image) }
    func decode(_ data: Data) throws -> Image { try decodeImage(data) }
}
let thumbnails = HybridCache(disk: try DiskCache(name: "thumbnails", in: .main), codec: ImageCodec())
try thumbnails.set(try decodeImage(downloaded), forKey: url)
let thumbnail = thumbnails.value(forKey: url)

// removeImage(forKey:)
memory.removeValue(forKey: url)
disk.removeValue(forKey: url)
// clearDisk(onCompletion:) / clearDiskCache()
try await disk.removeAll()
try await thumbnails.removeAll()

// Nothing is imported from an SDWebImage or Kingfisher folder: delete them once.
let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
for folder in ["com.hackemist.SDImageCache", "com.onevcat.Kingfisher.ImageCache.default"] {
    try? FileManager.default.removeItem(at: caches.appendingPathComponent(folder, isDirectory: true))
}
// snippet.hide
print("from disk \(fromDisk?.encoded.count ?? -1)")
print("count \(count) bytes \(bytes) file \(fileExists)")
print("thumbnail \(thumbnail?.width ?? -1)")
print("cleared \(disk.count) \(memory.count) \(thumbnails.contains(url))")
print("old folder removed \(!FileManager.default.fileExists(atPath: oldFolder.path))")
