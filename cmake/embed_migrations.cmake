# SPDX-License-Identifier: GPL-2.0-only
# Writes OUT: the migrations FILES of one dialect (schema/migrations/
# NNN_name.sql for sqlite, schema/migrations/pg/NNN_name.sql for
# PostgreSQL; sorted) as a C array NAME (default bb_migrations) of
# {version, name, sql}.  The version is the file's number; they must run
# 1, 2, 3... without gaps (checked by the store).  FILES comes
# '|'-separated (a ';' list would split in the command line).
string(REPLACE "|" ";" FILES "${FILES}")
if(NOT NAME)
  set(NAME bb_migrations)
endif()
set(body "/* generated from schema/migrations by cmake/embed_migrations.cmake */\n")
string(APPEND body "#ifndef BB_MIGRATION_STRUCT\n#define BB_MIGRATION_STRUCT\n")
string(APPEND body "struct bb_migration { int version; const char *name; const char *sql; };\n#endif\n")
string(APPEND body "static const struct bb_migration ${NAME}[] = {\n")
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
