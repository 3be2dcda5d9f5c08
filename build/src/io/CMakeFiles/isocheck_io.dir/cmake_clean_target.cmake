file(REMOVE_RECURSE
  "libisocheck_io.a"
)
