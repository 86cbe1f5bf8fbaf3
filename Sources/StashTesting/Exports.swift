// `import StashTesting` in a test file gives what tests of code built on Stash need: a
// temporary sandbox and the clock that moves only when told to. `ManualClock` lives in
// StashCore (stores take any `StashClock`); it is re-exported here for tests.
@_exported import class StashCore.ManualClock
@_exported import protocol StashCore.StashClock
