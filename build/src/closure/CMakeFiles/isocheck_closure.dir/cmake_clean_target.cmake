file(REMOVE_RECURSE
  "libisocheck_closure.a"
)
