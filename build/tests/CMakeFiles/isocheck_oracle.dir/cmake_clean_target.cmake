file(REMOVE_RECURSE
  "libisocheck_oracle.a"
)
