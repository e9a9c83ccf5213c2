# SPDX-License-Identifier: GPL-2.0-only
# Writes OUT: the sqlite migrations FILES (schema/migrations/NNN_name.sql,
# sorted) as a C array {version, name, sql}.  The version is the file's
# number; they must run 1, 2, 3... without gaps (checked by the store).
# FILES comes '|'-separated (a ';' list would split in the command line).
string(REPLACE "|" ";" FILES "${FILES}")
set(body "/* generated from schema/migrations by cmake/embed_migrations.cmake */\n")
string(APPEND body "struct bb_migration { int version; const char *name; const char *sql; };\n")
string(APPEND body "static const struct bb_migration bb_migrations[] = {\n")
foreach(f ${FILES})
  get_filename_component(name ${f} NAME)
  string(REGEX MATCH "^[0-9]+" num ${name})
  math(EXPR ver "${num}")
  file(READ ${f} sql)
  string(REPLACE "\\" "\\\\" sql "${sql}")
  string(REPLACE "\"" "\\\"" sql "${sql}")
  string(REPLACE "\n" "\\n\"\n\"" sql "${sql}")
  string(APPEND body "{ ${ver}, \"${name}\",\n\"${sql}\" },\n")
endforeach()
string(APPEND body "};\n")
file(WRITE ${OUT} "${body}")
