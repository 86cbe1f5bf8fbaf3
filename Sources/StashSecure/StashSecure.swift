import StashCore
