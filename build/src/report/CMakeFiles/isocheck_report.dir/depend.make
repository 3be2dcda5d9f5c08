# Empty dependencies file for isocheck_report.
# This may be replaced when dependencies are built.
