
'use strict';
{
  const globals = this;
  const django = globals.django || (globals.django = {});

  
  django.pluralidx = function(n) {
    const v = (n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<12 || n%100>14) ? 1 : n%10==0 || (n%10>=5 && n%10<=9) || (n%100>=11 && n%100<=14)? 2 : 3);
    if (typeof v === 'boolean') {
      return v ? 1 : 0;
    } else {
      return v;
    }
  };
  

  /* gettext library */

  django.catalog = django.catalog || {};
  
  const newcatalog = {
    "%(when)s, after %(units)s": "%(when)s, \u043f\u043e\u0441\u043b\u0435: %(units)s",
    "%(when)s, before the first": "%(when)s, \u0434\u043e \u043f\u0435\u0440\u0432\u043e\u0439",
    "%(who)s chosen (%(ids)s).": "\u0412\u044b\u0431\u0440\u0430\u043d: %(who)s (%(ids)s).",
    "%s player found": [
      "\u041d\u0430\u0439\u0434\u0435\u043d %s \u0438\u0433\u0440\u043e\u043a",
      "\u041d\u0430\u0439\u0434\u0435\u043d\u043e %s \u0438\u0433\u0440\u043e\u043a\u0430",
      "\u041d\u0430\u0439\u0434\u0435\u043d\u043e %s \u0438\u0433\u0440\u043e\u043a\u043e\u0432",
      "\u041d\u0430\u0439\u0434\u0435\u043d\u043e %s \u0438\u0433\u0440\u043e\u043a\u0430"
    ],
    "Date": "\u0414\u0430\u0442\u0430",
    "Mean %(mean)s over %(active)s active player": [
      "\u0412 \u0441\u0440\u0435\u0434\u043d\u0435\u043c %(mean)s \u0443 %(active)s \u0430\u043a\u0442\u0438\u0432\u043d\u043e\u0433\u043e \u0438\u0433\u0440\u043e\u043a\u0430",
      "\u0412 \u0441\u0440\u0435\u0434\u043d\u0435\u043c %(mean)s \u0443 %(active)s \u0430\u043a\u0442\u0438\u0432\u043d\u044b\u0445 \u0438\u0433\u0440\u043e\u043a\u043e\u0432",
      "\u0412 \u0441\u0440\u0435\u0434\u043d\u0435\u043c %(mean)s \u0443 %(active)s \u0430\u043a\u0442\u0438\u0432\u043d\u044b\u0445 \u0438\u0433\u0440\u043e\u043a\u043e\u0432",
      "\u0412 \u0441\u0440\u0435\u0434\u043d\u0435\u043c %(mean)s \u0443 %(active)s \u0430\u043a\u0442\u0438\u0432\u043d\u043e\u0433\u043e \u0438\u0433\u0440\u043e\u043a\u0430"
    ],
    "Mean rating": "\u0421\u0440\u0435\u0434\u043d\u0438\u0439 \u0440\u0435\u0439\u0442\u0438\u043d\u0433",
    "Player": "\u0418\u0433\u0440\u043e\u043a",
    "Rating": "\u0420\u0435\u0439\u0442\u0438\u043d\u0433",
    "Rating %s": "\u0420\u0435\u0439\u0442\u0438\u043d\u0433 %s",
    "from": "\u0441",
    "mean active rating": "\u0441\u0440\u0435\u0434\u043d\u0438\u0439 \u0440\u0435\u0439\u0442\u0438\u043d\u0433 \u0430\u043a\u0442\u0438\u0432\u043d\u044b\u0445",
    "mean predicted": "\u0441\u0440\u0435\u0434\u043d\u0438\u0439 \u043f\u0440\u043e\u0433\u043d\u043e\u0437",
    "observed": "\u0444\u0430\u043a\u0442\u0438\u0447\u0435\u0441\u043a\u0438",
    "predicted": "\u043f\u0440\u043e\u0433\u043d\u043e\u0437",
    "score": "\u0440\u0435\u0437\u0443\u043b\u044c\u0442\u0430\u0442"
  };
  for (const key in newcatalog) {
    django.catalog[key] = newcatalog[key];
  }
  

  if (!django.jsi18n_initialized) {
    django.gettext = function(msgid) {
      const value = django.catalog[msgid];
      if (typeof value === 'undefined') {
        return msgid;
      } else {
        return (typeof value === 'string') ? value : value[0];
      }
    };

    django.ngettext = function(singular, plural, count) {
      const value = django.catalog[singular];
      if (typeof value === 'undefined') {
        return (count == 1) ? singular : plural;
      } else {
        return value.constructor === Array ? value[django.pluralidx(count)] : value;
      }
    };

    django.gettext_noop = function(msgid) { return msgid; };

    django.pgettext = function(context, msgid) {
      let value = django.gettext(context + '\x04' + msgid);
      if (value.includes('\x04')) {
        value = msgid;
      }
      return value;
    };

    django.npgettext = function(context, singular, plural, count) {
      let value = django.ngettext(context + '\x04' + singular, context + '\x04' + plural, count);
      if (value.includes('\x04')) {
        value = django.ngettext(singular, plural, count);
      }
      return value;
    };

    django.interpolate = function(fmt, obj, named) {
      if (named) {
        return fmt.replace(/%\(\w+\)s/g, function(match){return String(obj[match.slice(2,-2)])});
      } else {
        return fmt.replace(/%s/g, function(match){return String(obj.shift())});
      }
    };


    /* formatting library */

    django.formats = {
    "DATETIME_FORMAT": "j E Y \u0433. G:i",
    "DATETIME_INPUT_FORMATS": [
      "%d.%m.%Y %H:%M:%S",
      "%d.%m.%Y %H:%M:%S.%f",
      "%d.%m.%Y %H:%M",
      "%d.%m.%y %H:%M:%S",
      "%d.%m.%y %H:%M:%S.%f",
      "%d.%m.%y %H:%M",
      "%Y-%m-%d %H:%M:%S",
      "%Y-%m-%d %H:%M:%S.%f",
      "%Y-%m-%d %H:%M",
      "%Y-%m-%d"
    ],
    "DATE_FORMAT": "j E Y \u0433.",
    "DATE_INPUT_FORMATS": [
      "%d.%m.%Y",
      "%d.%m.%y",
      "%Y-%m-%d"
    ],
    "DECIMAL_SEPARATOR": ",",
    "FIRST_DAY_OF_WEEK": 1,
    "MONTH_DAY_FORMAT": "j F",
    "NUMBER_GROUPING": 3,
    "SHORT_DATETIME_FORMAT": "d.m.Y H:i",
    "SHORT_DATE_FORMAT": "d.m.Y",
    "THOUSAND_SEPARATOR": "\u00a0",
    "TIME_FORMAT": "G:i",
    "TIME_INPUT_FORMATS": [
      "%H:%M:%S",
      "%H:%M:%S.%f",
      "%H:%M"
    ],
    "YEAR_MONTH_FORMAT": "F Y \u0433."
  };

    django.get_format = function(format_type) {
      const value = django.formats[format_type];
      if (typeof value === 'undefined') {
        return format_type;
      } else {
        return value;
      }
    };

    /* add to global namespace */
    globals.pluralidx = django.pluralidx;
    globals.gettext = django.gettext;
    globals.ngettext = django.ngettext;
    globals.gettext_noop = django.gettext_noop;
    globals.pgettext = django.pgettext;
    globals.npgettext = django.npgettext;
    globals.interpolate = django.interpolate;
    globals.get_format = django.get_format;

    django.jsi18n_initialized = true;
  }
};

