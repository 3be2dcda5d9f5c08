# Empty dependencies file for isocheck_oracle.
# This may be replaced when dependencies are built.
