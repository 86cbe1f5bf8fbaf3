import StashHTTP
