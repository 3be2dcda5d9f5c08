file(REMOVE_RECURSE
  "libisocheck_report.a"
)
