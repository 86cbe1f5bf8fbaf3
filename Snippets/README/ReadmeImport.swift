import Stash
// snippet.hide
print(Sandbox.self)
