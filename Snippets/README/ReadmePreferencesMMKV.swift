// snippet.hide
import Stash
import Foundation
let prefs = Preferences.standard
let mmkvFile = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "mmkv.default")
// snippet.show
try prefs.importMMKV(file: mmkvFile, types: ["volume": .double])   // moving from MMKV
