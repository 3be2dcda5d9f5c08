file(REMOVE_RECURSE
  "libisocheck_gen.a"
)
