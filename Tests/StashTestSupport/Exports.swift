// Our own tests see what users' tests see.
@_exported import StashTesting
