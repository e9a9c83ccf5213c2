/* result_json.c: being written */
