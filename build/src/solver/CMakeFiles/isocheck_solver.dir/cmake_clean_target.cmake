file(REMOVE_RECURSE
  "libisocheck_solver.a"
)
