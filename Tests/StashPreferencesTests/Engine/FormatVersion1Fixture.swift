import Foundation

/// A suite written by format version 1 (Stash before the compact records), the bytes up to
/// the header's end: answer=42, negative=-7, big=UInt64.max, greeting="hello, world",
/// flag=true, ratio=2.5, float=1.25, date=700000000 (reference date), blob=[1,2,3,255],
/// link=https://example.com/a?b=c, id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F,
/// list=["a","b","c"], font=["size":12,"weight":700], profile=JSON {"name":"Ada"},
/// "café" (NFC)="café", removed (set then removed), overwritten=2 (after 1),
/// expiring="until 2100" expiring at 4102444800 (2100-01-01).
enum FormatVersion1Fixture {
    static let bytes = Data(base64Encoded: "U1RBU0hQUkYBAAAAAAAAAAEAAAAAAAAAFQAAAAAAAACKAgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABoAAADfrRUeAQIGAGFuc3dlcioAAAAAAAAAHAAAAMEIU1ABAggAbmVnYXRpdmX5/////////xcAAACIBwqiAQMDAGJpZ///////////IAAAAIAZgKoBBggAZ3JlZXRpbmdoZWxsbywgd29ybGQRAAAApK9XOgEBBABmbGFnARkAAABCSeRLAQQFAHJhdGlvAAAAAAAABEAVAAAAafwqHAEFBQBmbG9hdAAAoD8YAAAAzFmYOQEHBABkYXRlAAAAgJPcxEEUAAAArCO/jwEIBABibG9iAQID/ykAAABAuNCQAQkEAGxpbmtodHRwczovL2V4YW1wbGUuY29tL2E/Yj1jHgAAAG2JOyoBCgIAaWTmIeH4w2xJWpP8DCR6Pm5fJgAAAFVe48EBCwQAbGlzdAMAAAAGAQAAAGEGAQAAAGIGAQAAAGNAAAAAy0YoGAEMBABmb250AgAAAAQAAABzaXplAggAAAAMAAAAAAAAAAYAAAB3ZWlnaHQCCAAAALwCAAAAAAAAIQAAAE+dAr4BDQcAcHJvZmlsZXsibmFtZSI6IkFkYSJ9FgAAAFuVqBgBBgUAY2Fmw6ljYWbDqRcAAADmJbYSAQYHAHJlbW92ZWRnb25lEwAAABrYT1wDAAcAcmVtb3ZlZB8AAABitFSWAQILAG92ZXJ3cml0dGVuAQAAAAAAAAAfAAAAgbPbGAECCwBvdmVyd3JpdHRlbgIAAAAAAAAAJgAAAFyhOHACBggABgAA4MqQ7kFleHBpcmluZ3VudGlsIDIxMDA=")!
}
